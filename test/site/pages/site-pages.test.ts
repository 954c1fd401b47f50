import { afterEach, describe, expect, it } from 'vitest';
import { errorCodes } from '../../../src/web/error-catalog.ts';
import { htmlOutline, markdownOutline } from '../../support/page-outline.ts';
import { buildSite, pagePaths, publicUrl, type SiteFixture } from '../../support/site-fixture.ts';

const browserAccept = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

let site: SiteFixture | undefined;
afterEach(async () => {
  await site?.app.close();
  site = undefined;
});

async function get(path: string, accept?: string) {
  site ??= await buildSite();
  return site.app.inject({ method: 'GET', url: path, headers: accept === undefined ? {} : { accept } });
}

describe('every page', () => {
  it.each(pagePaths)('%s is HTML by default, for browsers and for */*', async (path) => {
    for (const accept of [undefined, browserAccept, '*/*']) {
      const response = await get(path, accept);
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(response.headers.vary).toMatch(/\bAccept\b/);
      expect(response.headers['content-security-policy']).toMatch(/default-src 'none'.*style-src 'sha256-/);
      const html = response.body;
      expect(html).toMatch(/^<!doctype html>\n<html lang="en"/);
      expect(html).toContain('<a class="skip-link" href="#main">');
      expect(html).toMatch(/<main id="main"/);
      expect(html.match(/<h1\b/g)).toHaveLength(1);
      expect(html).not.toContain('{{');
      expect(html).not.toMatch(/<script\b/i);
      for (const linked of [
        '/docs',
        '/llms.txt',
        '/.well-known/api-catalog',
        '/v1/openapi.json',
        '/SKILL.md',
        '/status',
      ]) {
        expect(html).toContain(`href="${publicUrl}${linked}"`);
      }
    }
  });

  it.each(pagePaths)('%s answers its Markdown source to Accept: text/markdown', async (path) => {
    const response = await get(path, 'text/markdown');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/markdown; charset=utf-8');
    expect(response.headers.vary).toMatch(/\bAccept\b/);
    expect(Number(response.headers['x-markdown-tokens'])).toBe(Math.ceil(response.body.length / 4));
    expect(response.body).toMatch(/^# \S/);
    expect(response.body).not.toContain('{{');
  });

  it.each(pagePaths)('%s says the same in both forms: same headings, same links', async (path) => {
    const markdown = (await get(path, 'text/markdown')).body;
    const html = (await get(path)).body;
    const fromMarkdown = markdownOutline(markdown);
    expect(fromMarkdown.headings.length).toBeGreaterThan(0);
    expect(htmlOutline(html)).toEqual(fromMarkdown);
  });

  it('marks the current page in the navigation', async () => {
    const html = (await get('/coins/ETH')).body;
    expect(html).toContain(`<a href="${publicUrl}/coins" aria-current="page">Coins</a>`);
    expect(html.match(/ aria-current="page">/g)).toHaveLength(1);
  });
});

describe('content negotiation', () => {
  it.each([
    ['text/markdown', 'markdown'],
    ['text/markdown, text/html', 'markdown'],
    ['text/html;q=0.9, text/markdown', 'markdown'],
    ['text/markdown;q=0.8, text/html;q=0.8', 'markdown'],
    ['text/markdown;q=0.5, text/html', 'html'],
    ['text/markdown;q=0', 'html'],
    ['text/*', 'html'],
    ['application/json', 'html'],
    ['TEXT/MARKDOWN', 'markdown'],
  ])('Accept: %s gets %s', async (accept, form) => {
    const response = await get('/docs', accept);
    expect(response.headers['content-type']).toBe(
      form === 'markdown' ? 'text/markdown; charset=utf-8' : 'text/html; charset=utf-8',
    );
  });
});

describe('overview', () => {
  it('states the current number of currencies and the last refresh from the latest snapshot', async () => {
    const markdown = (await get('/', 'text/markdown')).body;
    expect(markdown).toContain('Currencies listed: **4**');
    expect(markdown).toContain('Last refresh: **2025-06-01 10:20:00 UTC** (4 min ago)');
    expect(markdown).toContain('**61,250 toman**');
    expect(markdown).toContain(`[request a key](${publicUrl}/contact)`);
  });

  it('says plainly that no rates exist before the first refresh', async () => {
    site = await buildSite({ withSnapshot: false });
    const markdown = (await get('/', 'text/markdown')).body;
    expect(markdown).toContain('No rates have been published yet');
    expect((await get('/coins', 'text/markdown')).body).toContain('No rates have been published yet');
    expect((await get('/coins/BTC')).statusCode).toBe(404);
  });

  it('links the API catalog in a Link header (RFC 9727 §3)', async () => {
    const response = await get('/');
    expect(String(response.headers.link).split(', ')).toContain(
      `<${publicUrl}/.well-known/api-catalog>; rel="api-catalog"`,
    );
  });
});

describe('coins', () => {
  it('lists every coin with its English name and its own as_of in UTC and Tehran', async () => {
    const html = (await get('/coins')).body;
    const markdown = (await get('/coins', 'text/markdown')).body;
    for (const [symbol, english, name, asOf] of [
      ['BTC', 'Bitcoin', 'بیت‌کوین', '2025-06-01 10:19:42 UTC (13:49:42 Tehran)'],
      ['ETH', 'Ethereum', 'اتریوم', '2025-06-01 08:02:10 UTC (11:32:10 Tehran)'],
      ['SHIB', 'Shiba Inu', 'شیبا اینو', '2025-06-01 10:11:00 UTC (13:41:00 Tehran)'],
      ['USDT', 'Tether', 'تتر', '2025-06-01 10:18:05 UTC (13:48:05 Tehran)'],
    ] as const) {
      expect(html).toContain(`<a href="${publicUrl}/coins/${symbol}">${symbol}</a>`);
      expect(html).toContain(`<td>${english}</td>`);
      // The Markdown form names it the same way, the Persian name beside it.
      expect(markdown).toContain(`| ${english} (${name}) |`);
      // In the list's narrow cell it breaks only between the UTC and the Tehran time.
      expect(html).toContain(asOf.replace(/ (?!\()/g, '\u00A0'));
      expect(markdown).toContain(asOf);
    }
    expect(html).toContain('0.00001734 USDT');
    expect(html).toContain('4,123,438,813 toman');
    expect(html).toContain('−0.52%');
  });

  it('serves a coin page case-insensitively', async () => {
    const upper = await get('/coins/BTC', 'text/markdown');
    const lower = await get('/coins/btc', 'text/markdown');
    expect(lower.statusCode).toBe(200);
    expect(lower.body).toBe(upper.body);
    expect(upper.body).toMatch(/^# BTC: Bitcoin \(بیت‌کوین\)/);
    expect(upper.body).toContain('| As of | 2025-06-01 10:19:42 UTC (13:49:42 Tehran) (4 min ago) |');
    expect(upper.body).toContain('| Sell rate in toman | 4,123,438,813 toman |');
    expect(upper.body).toContain(`curl -H "X-API-Key: <API_KEY>" "${publicUrl}/v1/rates?symbol=BTC"`);
  });

  it('says under the rates which source priced the coin and how long ago, and the tether rate’s source when a price was converted', async () => {
    const btc = await get('/coins/BTC', 'text/markdown');
    expect(btc.body).toContain(
      'Price from **binance**, 4 min ago; converted between tether and toman at the tether rate from **nobitex**.',
    );
    expect((await get('/coins/BTC')).body).toContain(
      '<p>Price from <strong>binance</strong>, 4 min ago; converted between tether and toman at the tether rate from <strong>nobitex</strong>.</p>',
    );
    // Tether's own row is its source's price: nothing converted.
    const usdt = await get('/coins/USDT', 'text/markdown');
    expect(usdt.body).toContain('Price from **nobitex**, 5 min ago.\n');
  });

  it('answers an unknown coin with a 404 page for people and agents', async () => {
    const html = await get('/coins/NOPE', browserAccept);
    expect(html.statusCode).toBe(404);
    expect(html.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(html.body).toContain('No listed currency has the symbol <strong>NOPE</strong>');
    expect(html.body).not.toContain('rel="canonical"');
    const markdown = await get('/coins/nope', 'text/markdown');
    expect(markdown.statusCode).toBe(404);
    expect(markdown.body).toMatch(/^# Coin not found/);
  });

  it('answers an unknown coin with the API problem document to JSON clients', async () => {
    const response = await get('/coins/NOPE', 'application/json');
    expect(response.statusCode).toBe(404);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json()).toMatchObject({
      type: `${publicUrl}/docs/errors#unknown-symbol`,
      status: 404,
      code: 'unknown-symbol',
      detail: 'No listed currency has the symbol NOPE.',
    });
  });

  it('never echoes a symbol that is not symbol-shaped', async () => {
    const response = await get('/coins/%3Cscript%3Ealert(1)%3C%2Fscript%3E');
    expect(response.statusCode).toBe(404);
    expect(response.body).not.toMatch(/<script/i);
    expect(response.body).not.toContain('alert(1)');
  });
});

describe('docs and errors', () => {
  it('documents every error code of the catalog under its own anchor', async () => {
    const html = (await get('/docs/errors')).body;
    for (const code of errorCodes) {
      expect(html).toContain(`<h2 id="${code}"><code>${code}</code></h2>`);
    }
    const docs = (await get('/docs', 'text/markdown')).body;
    for (const code of errorCodes) expect(docs).toContain(`(${publicUrl}/docs/errors#${code})`);
  });

  it('shows curl, JavaScript and Python examples with the key in the header only', async () => {
    const docs = (await get('/docs', 'text/markdown')).body;
    expect(docs).toContain('```sh\ncurl');
    expect(docs).toContain('```js\n');
    expect(docs).toContain('```python\n');
    const code = [...docs.matchAll(/```\w*\n([\s\S]*?)```/g)].map((block) => block[1]).join('\n');
    expect(code).toContain('X-API-Key');
    expect(code).not.toMatch(/[?&](key|api_key|apikey)=/);
    expect(docs).toContain('RateLimit-Policy: "default";q=60;w=60');
    expect(docs).toContain('If-None-Match');
  });

  it('has a Clients page with the client example, both MCP tools and host configurations that point at this service', async () => {
    const markdown = (await get('/clients', 'text/markdown')).body;
    expect(markdown).toMatch(/^# Clients\n/);
    expect(markdown).toContain(`new NerkhClient({ baseUrl: '${publicUrl}'`);
    for (const text of [
      'get_sell_rates',
      'get_service_health',
      '### Claude Desktop',
      '### Cursor',
      '### VS Code',
    ]) {
      expect(markdown).toContain(text);
    }
    expect(markdown).toContain(`"NERKH_BASE_URL": "${publicUrl}"`);
    expect(markdown).toContain(
      '`updated_at` is when the whole list was committed, **not** the time of any row',
    );
    expect((await get('/')).body).toContain(`<a href="${publicUrl}/clients">Clients</a>`);
  });

  it('has the disclaimer on the terms page exactly as the API sends it', async () => {
    const markdown = (await get('/terms', 'text/markdown')).body;
    expect(markdown).toContain(
      '> Rates are informational only. The final rate of an order is fixed when the order is placed in the user panel.',
    );
  });

  it('shows the health judgement on the status page', async () => {
    const markdown = (await get('/status', 'text/markdown')).body;
    // The fixture's collector never reported, so /v1/health would say warn.
    expect(markdown).toContain('**Status: warn.**');
    expect(markdown).toContain('| snapshot:age | pass |');
    expect(markdown).toContain('| collector:report | warn | never |');
  });
});
