import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AxeViolation,
  axeRun,
  backwardsPersianSvgText,
  firstVisitBytes,
  focusedElement,
  horizontalOverflow,
  lowContrastText,
  mainOutline,
  type PricePlacement,
  pricePlacement,
  unmarkedPersianText,
} from '../support/in-page.ts';
import { markdownOutline } from '../support/page-outline.ts';
import { snapshotDraft, weekOfSnapshots } from '../support/site-fixture.ts';
import {
  announceChromiumSkip,
  chromiumAvailable,
  chromiumFlags,
  chromiumPath,
  chromiumRequired,
  type SiteServer,
  startSiteServer,
} from '../support/site-server.ts';

/**
 * The website in real headless Chromium (Debian's /usr/bin/chromium driven by playwright-core),
 * every page in English and in Persian: pages render without console errors, CSP violations or
 * requests to other sites, axe-core finds no accessibility violation in the light or the dark
 * scheme, a first visit stays within the size budget, pages reflow on a phone, focus stays
 * visible, and the contact form reaches `nerkh requests list`. Screenshots of the main pages go to
 * test-artifacts/ for a person to look at.
 */
announceChromiumSkip('browser tests');

const artifacts = join(import.meta.dirname, '../../test-artifacts');
const bin = join(import.meta.dirname, '../../bin/nerkh.js');
const englishPages = [
  '/',
  '/docs',
  '/docs/errors',
  '/coins',
  '/coins/BTC',
  '/contact',
  '/status',
  '/terms',
  '/clients',
];
const persianPages = englishPages.map((path) => (path === '/' ? '/fa' : `/fa${path}`));
const pages = [...englishPages, ...persianPages];
/** HTML + CSS + font of a first visit, as sent (the stylesheet is inline; the font is the only other asset). */
const firstVisitBudget = 150 * 1024;
/** axe-core's browser build, evaluated in each page (DevTools evaluation is not subject to the page's CSP). */
const axeSource = readFileSync(join(import.meta.dirname, '../../node_modules/axe-core/axe.min.js'), 'utf8');

describe.skipIf(!chromiumAvailable && !chromiumRequired)('website in Chromium', () => {
  let site: SiteServer;
  let origin: string;
  let dataDir: string;
  let browser: Browser;

  beforeAll(async () => {
    if (!chromiumAvailable) throw new Error(`NERKH_REQUIRE_CHROMIUM=1 but ${chromiumPath} is missing`);
    // A week of hourly snapshots first, so the coin pages and the list have a history to draw; the
    // fixture's times moved to now, as a running service would show them.
    const shiftMs = Date.now() - 60_000 - Date.parse(snapshotDraft.updated_at);
    const shifted = (iso: string) => new Date(Date.parse(iso) + shiftMs).toISOString();
    site = await startSiteServer('browser', (at) =>
      [...weekOfSnapshots(), snapshotDraft].map((draft) => ({
        ...draft,
        updated_at: shifted(draft.updated_at),
        rates: draft.rates.map((row) => ({
          ...row,
          as_of: shifted(row.as_of),
          url: `${at}/coins/${row.symbol}`,
        })),
      })),
    );
    ({ origin, dataDir } = site);
    browser = await chromium.launch({ executablePath: chromiumPath, args: [...chromiumFlags] });
    mkdirSync(artifacts, { recursive: true });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });

  /** Opens a page and records every console error, uncaught exception and failed request. */
  async function open(
    path: string,
    options: { width?: number; colorScheme?: 'light' | 'dark'; javaScript?: boolean } = {},
  ) {
    const context = await browser.newContext({
      viewport: { width: options.width ?? 1280, height: 900 },
      colorScheme: options.colorScheme ?? 'light',
      javaScriptEnabled: options.javaScript ?? true,
    });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning')
        problems.push(`${message.type()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
    page.on('requestfailed', (request) => problems.push(`requestfailed: ${request.url()}`));
    page.on('request', (request) => {
      if (!request.url().startsWith(`${origin}/`) && !request.url().startsWith('data:'))
        problems.push(`request to another site: ${request.url()}`);
    });
    const response = await page.goto(`${origin}${path}`);
    return { page, problems, status: response?.status(), close: () => context.close() };
  }

  // Each page is opened once for the checks that read it as a first visit in the light scheme at
  // 1280 px (opening a page is most of what each check costs), and again for the dark scheme and
  // for a phone's width.
  describe.each(pages)('%s', (path) => {
    let visit: Awaited<ReturnType<typeof open>>;
    beforeAll(async () => {
      visit = await open(path);
    });
    afterAll(() => visit?.close());

    it('renders with no console errors, CSP violations or failed requests', async () => {
      const { page, problems, status } = visit;
      expect(status).toBe(200);
      const persian = path.startsWith('/fa');
      expect(await page.locator('html').getAttribute('lang')).toBe(persian ? 'fa' : 'en');
      expect(await page.locator('html').getAttribute('dir')).toBe(persian ? 'rtl' : 'ltr');
      expect(await page.locator('main h1').count()).toBe(1);
      expect(await page.locator('main h1').isVisible()).toBe(true);
      // Persian text is always marked up with its language and direction.
      const unmarked = await visit.page.evaluate<string[]>(unmarkedPersianText);
      expect(unmarked).toEqual([]);
      expect(problems).toEqual([]);
    });

    it('shows the same headings and links in its HTML as in its Markdown', async () => {
      const markdown = await (
        await fetch(`${origin}${path}`, { headers: { accept: 'text/markdown' } })
      ).text();
      const fromDom = await visit.page.evaluate<{ headings: string[]; links: string[] }>(mainOutline);
      expect(fromDom).toEqual(markdownOutline(markdown));
    });

    it(`stays within ${firstVisitBudget / 1024} kB of HTML, CSS and font on a first visit`, async () => {
      await visit.page.evaluate('document.fonts.ready');
      const bytes = await visit.page.evaluate<{ total: number; entries: string[] }>(firstVisitBytes);
      expect(bytes.total, bytes.entries.join(', ')).toBeLessThanOrEqual(firstVisitBudget);
    });

    it('has no accessibility violations in the light scheme (axe-core)', async () => {
      await visit.page.evaluate(axeSource);
      const violations = await visit.page.evaluate<AxeViolation[]>(axeRun);
      expect(violations).toEqual([]);
    });

    it('has no accessibility violations in the dark scheme (axe-core)', async () => {
      const { page, close } = await open(path, { colorScheme: 'dark' });
      try {
        await page.evaluate(axeSource);
        const violations = await page.evaluate<AxeViolation[]>(axeRun);
        expect(violations).toEqual([]);
      } finally {
        await close();
      }
    });

    // 320 px is WCAG 1.4.10's reflow width; 360 px is the narrowest phone in wide use.
    it('reflows on 320 and 360 px wide phones without horizontal page scrolling', async () => {
      const { page, close } = await open(path, { width: 320 });
      try {
        expect(await page.evaluate<number>(horizontalOverflow), '320 px').toBeLessThanOrEqual(0);
        await page.setViewportSize({ width: 360, height: 900 });
        expect(await page.evaluate<number>(horizontalOverflow), '360 px').toBeLessThanOrEqual(0);
      } finally {
        await close();
      }
    });
  });

  it('draws Persian pages in the Vazirmatn font the site serves itself', async () => {
    const { page, problems, close } = await open('/fa/coins/BTC');
    try {
      await page.evaluate('document.fonts.ready');
      const used = await page.evaluate<{ loaded: string[]; heading: string }>(`({
        loaded: [...document.fonts].filter((face) => face.status === 'loaded').map((face) => face.family),
        heading: getComputedStyle(document.querySelector('main h1')).fontFamily,
      })`);
      expect(used.loaded).toEqual(['Vazirmatn']);
      expect(used.heading).toMatch(/^Vazirmatn,/);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('draws the Persian charts with every Persian text reading right to left', async () => {
    const { page, close } = await open('/fa/coins/BTC');
    try {
      expect(await page.locator('svg text').count()).toBeGreaterThan(20);
      expect(await page.evaluate<string[]>(backwardsPersianSvgText)).toEqual([]);
    } finally {
      await close();
    }
  });

  it('offers a skip link first and shows a visible focus ring', async () => {
    const { page, close } = await open('/docs');
    try {
      await page.keyboard.press('Tab');
      type Focused = { id: string; text: string; outline: string; width: string; top: number };
      const focused = await page.evaluate<Focused>(focusedElement);
      expect(focused.text).toBe('Skip to main content');
      expect(focused.outline).toBe('solid');
      expect(Number.parseFloat(focused.width)).toBeGreaterThanOrEqual(2);
      expect(focused.top).toBeGreaterThanOrEqual(0);
      await page.keyboard.press('Enter');
      expect((await page.evaluate<Focused>(focusedElement)).id).toBe('main');
    } finally {
      await close();
    }
  });

  it.each([
    ['/contact', 'light'],
    ['/contact', 'dark'],
    ['/coins', 'light'],
    ['/coins', 'dark'],
    ['/coins/BTC', 'light'],
    ['/coins/BTC', 'dark'],
  ] as const)('keeps text contrast of %s at WCAG AA (4.5:1) in the %s scheme', async (path, colorScheme) => {
    const { page, close } = await open(path, { colorScheme });
    try {
      const failures = await page.evaluate<string[]>(lowContrastText);
      expect(failures).toEqual([]);
    } finally {
      await close();
    }
  });

  it('draws the coin page charts, with their summaries and data tables, without script', async () => {
    const { page, problems, close } = await open('/coins/BTC', { javaScript: false });
    try {
      const charts = page.locator('figure.chart svg[role="img"]');
      expect(await charts.count()).toBe(4);
      for (const chart of await charts.all()) {
        const box = await chart.boundingBox();
        expect(box?.width).toBeGreaterThan(300);
        expect(box?.height).toBeGreaterThan(150);
      }
      const weekInTether = page.getByRole('img', { name: 'BTC in tether (USDT), last 7 days' });
      expect(await weekInTether.getAttribute('aria-describedby')).toBe('chart-7d-usdt-summary');
      expect(await page.locator('#chart-7d-usdt-summary').textContent()).toMatch(/^Low 50,000 USDT at /);
      await page.getByText('Data table: BTC in USDT, last 7 days').click();
      const lowRow = page.locator('#chart-7d-usdt tr', { hasText: 'Low' });
      expect(await lowRow.locator('td').nth(1).textContent()).toBe('50,000');
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('filters the coins list with its form and sorts it with its heading links, without script', async () => {
    const { page, problems, close } = await open('/coins', { javaScript: false });
    const rowIds = () =>
      page.locator('table.coin-table tbody tr').evaluateAll((rows) => rows.map((row) => row.id));
    try {
      expect(await page.locator('table.coin-table svg.sparkline').count()).toBe(4);
      await page.getByRole('link', { name: /^Sell \(USDT\)/ }).click();
      await page.waitForURL(`${origin}/coins?sort=usdt&order=asc`);
      expect(await rowIds()).toEqual(['SHIB', 'USDT', 'ETH', 'BTC']);
      await page.getByRole('link', { name: /^Sell \(USDT\)/ }).click();
      await page.waitForURL(`${origin}/coins?sort=usdt&order=desc`);
      expect(await rowIds()).toEqual(['BTC', 'ETH', 'USDT', 'SHIB']);
      await page.getByLabel('Filter by symbol or name').fill('اتر');
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.waitForURL(/q=/);
      expect(await rowIds()).toEqual(['ETH']);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
    const anchored = await open('/coins#SHIB');
    try {
      expect(await anchored.page.locator('tr:target').getAttribute('id')).toBe('SHIB');
    } finally {
      await anchored.close();
    }
  });

  // The list is the page people open for prices: on a phone each row's two prices must be on the
  // screen, not in the table's sideways scroll. Screenshots at both widths go to
  // test-artifacts/ beside the ones at 1280 and 390 px below.
  it.each([
    ['/coins', 360, 'coins'],
    ['/coins', 390, 'coins'],
    ['/fa/coins', 360, 'fa-coins'],
    ['/fa/coins', 390, 'fa-coins'],
  ] as const)(
    'shows every row of %s with both its prices on a %i px wide phone',
    async (path, width, name) => {
      const { page, problems, close } = await open(path, { width });
      try {
        await page.evaluate('document.fonts.ready');
        await page.screenshot({ path: join(artifacts, `${name}-${width}.png`), fullPage: true });
        const placed = await page.evaluate<PricePlacement>(pricePlacement);
        expect(placed.rows).toHaveLength(4);
        for (const row of placed.rows) {
          for (const [column, box] of Object.entries(row.boxes)) {
            const where = `${row.id} ${column}: ${JSON.stringify(box)} in ${placed.viewport} px`;
            expect(box.width, where).toBeGreaterThan(0);
            expect(box.left, where).toBeGreaterThanOrEqual(0);
            expect(box.right, where).toBeLessThanOrEqual(placed.viewport);
          }
        }
        // Nothing scrolls sideways: neither the page nor the list's own region.
        expect(placed.pageOverflow).toBeLessThanOrEqual(0);
        expect(placed.listOverflow).toBeLessThanOrEqual(0);
        await page.evaluate(axeSource);
        expect(await page.evaluate<AxeViolation[]>(axeRun)).toEqual([]);
        expect(await page.evaluate<string[]>(lowContrastText)).toEqual([]);
        expect(problems).toEqual([]);
      } finally {
        await close();
      }
    },
  );

  it.each([
    ['/coins', 'Bitcoin'],
    ['/fa/coins', 'بیت‌کوین'],
  ])('sorts %s by toman and opens a coin from it on a 360 px wide phone', async (path, bitcoin) => {
    const { page, problems, close } = await open(path, { width: 360, javaScript: false });
    try {
      await page.locator('table.coin-table thead a[href*="sort=toman"]').click();
      await page.waitForURL(`${origin}${path}?sort=toman&order=asc`);
      const rowIds = await page
        .locator('table.coin-table tbody tr')
        .evaluateAll((rows) => rows.map((row) => row.id));
      expect(rowIds).toEqual(['SHIB', 'USDT', 'ETH', 'BTC']);
      await page.getByRole('link', { name: 'BTC', exact: true }).click();
      await page.waitForURL(`${origin}${path}/BTC`);
      expect(await page.locator('main h1').textContent()).toContain(bitcoin);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  // The phone layout changes how the table's parts are displayed; what a screen reader gets is
  // Chromium's accessibility tree, so this reads that tree, not the DOM.
  it.each(['/coins', '/fa/coins'])(
    'keeps %s a table with headers for screen readers on a phone',
    async (path) => {
      const { page, close } = await open(path, { width: 360 });
      try {
        const session = await page.context().newCDPSession(page);
        const { nodes } = (await session.send('Accessibility.getFullAXTree')) as {
          nodes: { ignored: boolean; role?: { value: string }; name?: { value: string } }[];
        };
        const roles = nodes.filter((node) => !node.ignored).map((node) => node.role?.value);
        const count = (role: string) => roles.filter((each) => each === role).length;
        expect(count('table')).toBe(1);
        expect(count('row')).toBe(5);
        expect(count('columnheader')).toBe(7);
        expect(count('rowheader')).toBe(4);
        expect(count('cell')).toBe(4 * 6);
      } finally {
        await close();
      }
    },
  );

  it('sends the contact form, and the request shows up in `nerkh requests list`', async () => {
    const { page, problems, close } = await open('/contact');
    try {
      await page.getByLabel('Your name').fill('Sara Ahmadi');
      await page.getByLabel('Organisation').fill('کویر آنالیتیکس');
      await page.getByLabel('Email').fill('sara@kavir.example');
      await page.getByLabel('Purpose').fill('Show toman prices in our portfolio app');
      await page.getByLabel('Expected use (optional)').fill('One request per minute');
      await page.getByRole('button', { name: 'Send request' }).click();
      await page.waitForURL(`${origin}/contact/received`);
      expect(await page.locator('main h1').textContent()).toBe('Request received');
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
    const { stdout } = await promisify(execFile)(process.execPath, [bin, 'requests', 'list', '--json'], {
      env: { ...process.env, NERKH_DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
    });
    expect(JSON.parse(stdout).requests).toEqual([
      expect.objectContaining({
        name: 'Sara Ahmadi',
        org: 'کویر آنالیتیکس',
        email: 'sara@kavir.example',
        purpose: 'Show toman prices in our portfolio app',
        expected_use: 'One request per minute',
        status: 'pending',
      }),
    ]);
  });

  it('shows field errors next to the fields and keeps the form usable', async () => {
    const { page, problems, close } = await open('/contact');
    try {
      await page.getByLabel('Email').fill('not-an-email');
      await page.getByRole('button', { name: 'Send request' }).click();
      await page.waitForLoadState();
      expect(await page.title()).toBe('Error: Request an API key · nerkh');
      expect(await page.getByLabel('Email').getAttribute('aria-invalid')).toBe('true');
      expect(await page.locator('#email-error').textContent()).toBe(
        'Error: Enter an email address like name@example.com.',
      );
      // The page is a 400 answer; Chromium reports the status of the navigation as a console error.
      expect(problems.filter((problem) => !problem.includes('400'))).toEqual([]);
    } finally {
      await close();
    }
  });

  // Eight full-page screenshots: seconds on an idle machine, far more beside other browsers.
  it('saves screenshots of the overview, the coins list and a coin page in both languages', {
    timeout: 60_000,
  }, async () => {
    for (const [path, name] of [
      ['/', 'overview'],
      ['/coins', 'coins'],
      ['/coins/BTC', 'coin-btc'],
      ['/fa/coins', 'fa-coins'],
      ['/fa/coins/BTC', 'fa-coin-btc'],
    ] as const) {
      for (const width of [1280, 390]) {
        const { page, problems, close } = await open(path, { width });
        try {
          await page.evaluate('document.fonts.ready');
          await page.screenshot({ path: join(artifacts, `${name}-${width}.png`), fullPage: true });
          expect(problems).toEqual([]);
        } finally {
          await close();
        }
      }
    }
    expect(existsSync(join(artifacts, 'fa-coin-btc-390.png'))).toBe(true);
  });
});
