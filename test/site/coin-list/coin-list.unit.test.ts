import { describe, expect, it } from 'vitest';
import { publicUrl, sitePerTest, weekOfSnapshots } from '../../support/site-fixture.ts';

const { get } = sitePerTest({ earlier: weekOfSnapshots() });

/** The symbols of the list's rows, in order, from their anchors. */
async function rowIds(path: string): Promise<string[]> {
  const html = (await get(path)).body;
  return [...html.matchAll(/<tr id="([^"]+)">/g)].map((match) => match[1] as string);
}

describe('coins list', () => {
  it('gives each row its symbol as anchor and links the symbol to the coin page', async () => {
    const html = (await get('/coins')).body;
    expect(await rowIds('/coins')).toEqual(['BTC', 'ETH', 'SHIB', 'USDT']);
    expect(html).toContain(`<tr id="BTC"><th scope="row"><a href="${publicUrl}/coins/BTC">BTC</a></th>`);
  });

  it('shows a 24 h sparkline per row, named by its low, high and change, and the same facts in Markdown', async () => {
    const html = (await get('/coins')).body;
    expect(html).toContain('<th scope="col">Last 24 hours</th>');
    expect(html).toMatch(
      /<tr id="BTC">.*<svg class="sparkline" [^>]*role="img" aria-label="Last 24 hours: low 66,000 USDT, high 70,000 USDT, \+2\.00%"/,
    );
    const markdown = (await get('/coins', 'text/markdown')).body;
    expect(markdown).toContain('| 66,000 USDT – 70,000 USDT, +2.00% |');
  });

  it('filters by symbol, English or Persian name from a GET form, however the name is typed', async () => {
    const html = (await get('/coins')).body;
    expect(html).toMatch(
      new RegExp(`<form class="coin-filter" method="get" action="${publicUrl}/coins" role="search">`),
    );
    expect(html).toMatch(/<input id="coin-filter" name="q" type="search"/);
    // "eth" is in ETH and in Tether; the English name is matched without case or spaces.
    expect(await rowIds('/coins?q=eth')).toEqual(['ETH', 'USDT']);
    expect(await rowIds('/coins?q=SH')).toEqual(['SHIB']);
    expect(await rowIds('/coins?q=bitcoin')).toEqual(['BTC']);
    expect(await rowIds('/coins?q=ETHEREUM')).toEqual(['ETH']);
    expect(await rowIds(`/coins?q=${encodeURIComponent('shiba inu')}`)).toEqual(['SHIB']);
    expect(await rowIds('/coins?q=shibainu')).toEqual(['SHIB']);
    // Arabic yeh and kaf, a space for the ZWNJ: still بیت‌کوین.
    expect(await rowIds(`/coins?q=${encodeURIComponent('بيت كوين')}`)).toEqual(['BTC']);
    expect(await rowIds(`/coins?q=${encodeURIComponent('تتر')}`)).toEqual(['USDT']);
    const filtered = (await get('/coins?q=ereum', 'text/markdown')).body;
    expect(filtered).toContain('1 of them has a symbol, English or Persian name containing “ereum”');
    expect(filtered).toContain(`[show all coins](${publicUrl}/coins)`);
    expect(filtered).not.toContain('[BTC]');
  });

  it('says when nothing matches, and echoes the filter escaped', async () => {
    const response = await get(`/coins?q=${encodeURIComponent('"><b>x')}`);
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain('None have a symbol, English or Persian name containing');
    expect(response.body).toContain('value="&quot;&gt;&lt;b&gt;x"');
    expect(response.body).not.toContain('<b>x');
    expect(response.body).not.toContain('<table class="coin-table">');
  });

  it('sorts by a column from its heading link, a second click reversing it, rows without a value last', async () => {
    expect(await rowIds('/coins?sort=usdt&order=desc')).toEqual(['BTC', 'ETH', 'USDT', 'SHIB']);
    expect(await rowIds('/coins?sort=usdt&order=asc')).toEqual(['SHIB', 'USDT', 'ETH', 'BTC']);
    expect(await rowIds('/coins?sort=change&order=asc')).toEqual(['ETH', 'BTC', 'SHIB', 'USDT']);
    expect(await rowIds('/coins?sort=change&order=desc')).toEqual(['BTC', 'ETH', 'SHIB', 'USDT']);
    // English pages sort by the English name they show; Persian ones in Persian order: ا ب ت ش.
    expect(await rowIds('/coins?sort=name')).toEqual(['BTC', 'ETH', 'SHIB', 'USDT']);
    expect(await rowIds('/coins?sort=name&order=desc')).toEqual(['USDT', 'SHIB', 'ETH', 'BTC']);
    expect(await rowIds('/fa/coins?sort=name')).toEqual(['ETH', 'BTC', 'USDT', 'SHIB']);

    const html = (await get('/coins?q=t&sort=usdt&order=desc')).body;
    expect(html).toContain(
      `<th scope="col" aria-sort="descending"><a href="${publicUrl}/coins?q=t&amp;sort=usdt&amp;order=asc">Sell (USDT)<span aria-hidden="true"> ▼</span><span class="visually-hidden">, sort ascending</span></a></th>`,
    );
    expect(html).toContain(`<a href="${publicUrl}/coins?q=t&amp;sort=name&amp;order=asc">Name`);
    // The filter form keeps the order while the filter changes.
    expect(html).toContain(
      '<input type="hidden" name="sort" value="usdt"><input type="hidden" name="order" value="desc">',
    );
  });

  it.each([
    '/coins?sort=price',
    '/coins?order=up',
    '/coins?sort=usdt&sort=name',
    `/coins?q=${'x'.repeat(41)}`,
  ])('answers %s with a 400 problem naming the accepted values', async (path) => {
    for (const accept of [undefined, 'text/markdown']) {
      const response = await get(path, accept);
      expect(response.statusCode).toBe(400);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response.json()).toMatchObject({
        code: 'invalid-request',
        detail: expect.stringContaining('sort (one of symbol, name, usdt, toman, change, as_of)'),
      });
    }
  });

  it('finds coins by their English and Persian names on the Persian list too', async () => {
    expect(await rowIds('/fa/coins?q=bitcoin')).toEqual(['BTC']);
    expect(await rowIds(`/fa/coins?q=${encodeURIComponent('بیت')}`)).toEqual(['BTC']);
    // Arabic yeh, no ZWNJ.
    expect(await rowIds(`/fa/coins?q=${encodeURIComponent('بيتكوين')}`)).toEqual(['BTC']);
    expect(await rowIds(`/coins?q=${encodeURIComponent('بیت')}`)).toEqual(['BTC']);
  });

  it('shows the English name beside the symbol on English pages, the Persian one on Persian pages', async () => {
    const html = (await get('/coins')).body;
    expect(html).toMatch(/<tr id="BTC"><th scope="row"><a [^>]+>BTC<\/a><\/th><td>Bitcoin<\/td>/);
    const persian = (await get('/fa/coins')).body;
    expect(persian).toMatch(/<tr id="BTC"><th scope="row"><a [^>]+>BTC<\/a><\/th><td>بیت‌کوین<\/td>/);
    expect(persian).not.toContain('Bitcoin');
  });

  it('ignores query parameters it does not know', async () => {
    expect((await get('/coins?utm_source=mail')).statusCode).toBe(200);
  });
});
