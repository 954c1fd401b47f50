import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/project-root.ts';
import { fontPath } from '../../src/site/font.ts';
import { markdownOutline } from '../support/page-outline.ts';
import {
  buildSite,
  pagePaths,
  persianPagePaths,
  publicUrl,
  type SiteFixture,
  weekOfSnapshots,
} from '../support/site-fixture.ts';

/**
 * The two languages of the website stay in step: every page source exists in both, and each
 * page's Persian form has the English form's structure (heading levels and link targets, with
 * site links moved under /fa). Also: how `/` picks its language, and the Persian conventions.
 */
let site: SiteFixture;
beforeAll(async () => {
  site = await buildSite();
});
afterAll(async () => {
  await site.app.close();
});

const get = (url: string, headers: Record<string, string> = {}) =>
  site.app.inject({ method: 'GET', url, headers });
const markdown = async (url: string) => (await get(url, { accept: 'text/markdown' })).body;

/** A Persian page's link as its English twin has it: site pages lose the /fa prefix. */
function englishTarget(href: string): string {
  if (href === `${publicUrl}/fa`) return `${publicUrl}/`;
  return href.startsWith(`${publicUrl}/fa/`) ? `${publicUrl}${href.slice(publicUrl.length + 3)}` : href;
}

describe('both languages have the same pages', () => {
  const contentDir = join(projectRoot, 'content');
  const pageFiles = (dir: string) =>
    readdirSync(dir)
      .filter((file) => file.endsWith('.md') && file !== 'SKILL.md')
      .sort();

  it('has a Persian source for every English page source, and no Persian page without an English one', () => {
    expect(pageFiles(join(contentDir, 'fa'))).toEqual(pageFiles(contentDir));
  });

  it.each(pagePaths.map((path, index) => [path, persianPagePaths[index] as string]))(
    '%s and %s have the same headings and links',
    async (englishPath, persianPath) => {
      const english = markdownOutline(await markdown(englishPath));
      const persian = markdownOutline(await markdown(persianPath));
      expect(persian.headings.map((heading) => heading.split(' ')[0])).toEqual(
        english.headings.map((heading) => heading.split(' ')[0]),
      );
      expect(persian.links.map(englishTarget)).toEqual(english.links);
    },
  );

  it('sends every Persian page as lang="fa" dir="rtl" HTML with links to both versions', async () => {
    for (const path of persianPagePaths) {
      const response = await get(path);
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-language']).toBe('fa');
      expect(response.body).toMatch(/^<!doctype html>\n<html lang="fa" dir="rtl">/);
      expect(response.body).toContain('hreflang="en" lang="en" dir="ltr">English</a>');
    }
  });
});

describe('language of an address', () => {
  it('answers / in Persian when Accept-Language prefers Persian, without a redirect', async () => {
    const response = await get('/', { 'accept-language': 'fa-IR,fa;q=0.9,en;q=0.5' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-language']).toBe('fa');
    expect(response.headers.vary).toBe('Accept, Accept-Language, Accept-Encoding');
    expect(response.body).toContain('<html lang="fa" dir="rtl">');
    expect(response.body).toContain(`<link rel="canonical" href="${publicUrl}/fa">`);
  });

  it('answers / in English for English, other languages, or no Accept-Language', async () => {
    const cases: Record<string, string>[] = [
      { 'accept-language': 'en-US,en;q=0.9' },
      { 'accept-language': 'de' },
      {},
    ];
    for (const headers of cases) {
      const response = await get('/', headers);
      expect(response.headers['content-language']).toBe('en');
      expect(response.body).toContain('<html lang="en" dir="ltr">');
    }
  });

  it('never lets Accept-Language change an explicit address', async () => {
    const english = await get('/docs', { 'accept-language': 'fa' });
    expect(english.statusCode).toBe(200);
    expect(english.headers['content-language']).toBe('en');
    expect(english.headers.vary).toBe('Accept, Accept-Encoding');
    const persian = await get('/fa/docs', { 'accept-language': 'en' });
    expect(persian.headers['content-language']).toBe('fa');
  });

  it('links the other language in the Link field and in <head>', async () => {
    const response = await get('/fa/coins/BTC');
    expect(response.headers.link).toContain(`<${publicUrl}/coins/BTC>; rel="alternate"; hreflang="en"`);
    expect(response.headers.link).toContain(`<${publicUrl}/fa/coins/BTC>; rel="alternate"; hreflang="fa"`);
    expect(response.body).toContain(`<link rel="alternate" hreflang="en" href="${publicUrl}/coins/BTC">`);
    expect(response.body).toContain(
      `<a href="${publicUrl}/coins/BTC" hreflang="en" lang="en" dir="ltr">English</a>`,
    );
  });
});

describe('Persian conventions', () => {
  it('writes amounts with Persian digits and separators, and times in Tehran with the Solar Hijri date', async () => {
    const page = await markdown('/fa/coins/BTC');
    expect(page).toContain('| نرخ فروش به تومان | ۴٬۱۲۳٬۴۳۸٬۸۱۳ تومان |');
    expect(page).toContain('| نرخ فروش به تتر | ۶۷٬۳۲۱٫۴۵ تتر |');
    // 10:19:42 UTC is 13:49:42 in Tehran (UTC+03:30).
    expect(page).toContain('۱۱ خرداد ۱۴۰۴، ۱۳:۴۹:۴۲ به وقت تهران (۴ دقیقه پیش)');
    expect(page).not.toContain('UTC');
  });

  it('says which source priced the coin and how long ago, in Persian', async () => {
    expect(await markdown('/fa/coins/BTC')).toContain(
      'قیمت از **binance**، ۴ دقیقه پیش؛ تبدیل میان تتر و تومان با نرخ تتر از **nobitex**.',
    );
    expect(await markdown('/fa/coins/USDT')).toContain('قیمت از **nobitex**، ۵ دقیقه پیش.\n');
  });

  it('keeps the catalog name with its zero-width non-joiner', async () => {
    const page = await markdown('/fa/coins');
    expect(page).toContain('| بیت\u200cکوین |');
  });

  it('keeps code samples ASCII: no Persian digits inside code blocks', async () => {
    for (const path of persianPagePaths) {
      const blocks = (await markdown(path)).match(/```[\s\S]*?```/g) ?? [];
      for (const block of blocks) expect(block).not.toMatch(/[۰-۹٬٫]/);
    }
    expect(await markdown('/fa/docs')).toContain('RateLimit-Policy: "default";q=60;w=60');
  });

  it('serves the Vazirmatn font from the site, cached as immutable, and the CSP allows it', async () => {
    const font = await get(fontPath);
    expect(font.statusCode).toBe(200);
    expect(font.headers['content-type']).toBe('font/woff2');
    expect(font.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const packaged = readFileSync(
      join(projectRoot, 'node_modules/vazirmatn/misc/Non-Latin/fonts/webfonts/Vazirmatn-NL[wght].woff2'),
    );
    expect(font.rawPayload.equals(packaged)).toBe(true);
    const page = await get('/fa');
    expect(page.headers['content-security-policy']).toContain("font-src 'self'");
    expect(page.body).toContain(`src:url("${fontPath}")`);
  });
});

describe('Persian price history', () => {
  let withHistory: SiteFixture;
  beforeAll(async () => {
    withHistory = await buildSite({ earlier: weekOfSnapshots() });
  });
  afterAll(async () => {
    await withHistory.app.close();
  });

  it('labels the charts in Persian with Persian digits and Solar Hijri times', async () => {
    const html = (await withHistory.app.inject({ url: '/fa/coins/BTC' })).body;
    expect(html).toContain(
      '<figcaption id="chart-1d-usdt-title" class="chart-title">BTC به تتر (USDT)، ۲۴ ساعت گذشته</figcaption>',
    );
    expect(html).toContain('قیمت فروش (تومان)');
    expect(html).toContain(
      'کمینه ۶۶٬۰۰۰ تتر در ۱۰ خرداد ۱۴۰۴، ۱۳:۵۰؛ بیشینه ۷۰٬۰۰۰ تتر در ۱۱ خرداد ۱۴۰۴، ۰۸:۵۰',
    );
    expect(html).not.toMatch(/<text[^>]*>[^<]*[0-9][^<]*<\/text>/);
  });

  it('gives the Markdown form the same facts in Persian', async () => {
    const markdown = (
      await withHistory.app.inject({ url: '/fa/coins/BTC', headers: { accept: 'text/markdown' } })
    ).body;
    expect(markdown).toContain(
      '| ۷ روز گذشته، به تتر | ۵۰٬۰۰۰ تتر | ۷۰٬۰۰۰ تتر | ۶۷٬۳۲۱٫۴۵ تتر | \u200e+۲٫۰۰٪ |',
    );
  });

  it('names the sparklines of the Persian list in Persian and keeps its sort links under /fa', async () => {
    const html = (await withHistory.app.inject({ url: '/fa/coins' })).body;
    expect(html).toContain('aria-label="۲۴ ساعت گذشته: کمینه ۶۶٬۰۰۰ تتر، بیشینه ۷۰٬۰۰۰ تتر، \u200e+۲٫۰۰٪"');
    expect(html).toContain(`href="${publicUrl}/fa/coins?sort=name&amp;order=asc"`);
    const filtered = await withHistory.app.inject({
      url: `/fa/coins?q=${encodeURIComponent('کوین')}`,
      headers: { accept: 'text/markdown' },
    });
    expect(filtered.body).toContain('۱ ارز نماد یا نامی (فارسی یا انگلیسی) شامل «کوین» دارد');
  });
});
