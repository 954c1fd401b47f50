import { describe, expect, it } from 'vitest';
import { sitePerTest, weekOfSnapshots } from '../support/site-fixture.ts';

const { get, rebuild, fixture } = sitePerTest({ earlier: weekOfSnapshots() });

describe('coin page price history', () => {
  it('states the 24 h and 7 d low, high, last and change in tether and toman in the Markdown form', async () => {
    const markdown = (await get('/coins/BTC', 'text/markdown')).body;
    expect(markdown).toContain('## Price history');
    expect(markdown).toContain(
      [
        '| Period | Low | High | Last | Change |',
        '|---|---|---|---|---|',
        '| last 24 hours, in USDT | 66,000 USDT | 70,000 USDT | 67,321.45 USDT | +2.00% |',
        '| last 24 hours, in toman | 4,042,500,000 toman | 4,287,500,000 toman | 4,123,438,813 toman | +2.00% |',
        '| last 7 days, in USDT | 50,000 USDT | 70,000 USDT | 67,321.45 USDT | +2.00% |',
        '| last 7 days, in toman | 3,062,500,000 toman | 4,287,500,000 toman | 4,123,438,813 toman | +2.00% |',
      ].join('\n'),
    );
    expect(markdown).not.toContain('<svg');
  });

  it('draws four charts in the HTML form, each with its summary and data table, allowed by the CSP', async () => {
    const response = await get('/coins/BTC');
    const html = response.body;
    for (const id of ['chart-1d-usdt', 'chart-1d-irt', 'chart-7d-usdt', 'chart-7d-irt']) {
      expect(html).toContain(`<figure class="chart" id="${id}">`);
      expect(html).toMatch(
        new RegExp(`<svg [^>]*aria-labelledby="${id}-title" aria-describedby="${id}-summary"`),
      );
    }
    expect(html).toContain(
      '<figcaption id="chart-1d-usdt-title" class="chart-title">BTC in tether (USDT), last 24 hours</figcaption>',
    );
    expect(html).toContain(
      '<p id="chart-1d-usdt-summary" class="chart-summary">Low 66,000 USDT at 2025-05-31 10:20:00 UTC; high 70,000 USDT at 2025-06-01 05:20:00 UTC; last 67,321.45 USDT at 2025-06-01 10:20:00 UTC (+2.00% over the period).</p>',
    );
    expect(html).toContain('>Low 50,000</text>');
    expect(html).toContain('<summary>Data table: BTC in toman, last 7 days</summary>');
    // Nothing the policy would block: no inline style attributes, scripts or outside requests.
    expect(response.headers['content-security-policy']).toContain("default-src 'none'");
    expect(html).not.toMatch(/ style=|<script|<img|xlink:href/);
    // The charts sit inside the page's one Markdown-rendered body, between the facts and the notes.
    expect(html.indexOf('id="price-history"')).toBeLessThan(html.indexOf('id="chart-1d-usdt"'));
    expect(html.indexOf('id="chart-7d-irt"')).toBeLessThan(html.indexOf('id="from-the-api"'));
  });

  it('reads and draws the history once per snapshot, not per request', async () => {
    await get('/coins/BTC');
    const reads = fixture()?.historyReads();
    expect(reads).toBe(2);
    await get('/coins/BTC');
    await get('/coins/btc', 'text/markdown');
    expect(fixture()?.historyReads()).toBe(reads);
    await get('/coins/ETH');
    expect(fixture()?.historyReads()).toBe(4);
  });

  it('shows a coin whose only stored price is the served one as that price, unchanged', async () => {
    await rebuild({});
    const markdown = (await get('/coins/ETH', 'text/markdown')).body;
    expect(markdown).toContain(
      '| last 24 hours, in USDT | 3,512.8 USDT | 3,512.8 USDT | 3,512.8 USDT | 0.00% |',
    );
  });

  it('serves the coin page and the list from memory when the store cannot give the history, and tries again', async () => {
    await rebuild({ earlier: weekOfSnapshots(), historyFails: true });
    const page = await get('/coins/BTC', 'text/markdown');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('| Sell rate in tether | 67,321.45 USDT |');
    expect(page.body).toContain('The price history cannot be read right now: the store did not answer.');
    const list = await get('/coins', 'text/markdown');
    expect(list.statusCode).toBe(200);
    expect(list.body).toContain('| not available | 2025-06-01 10:19:42 UTC (13:49:42 Tehran) |');
    const reads = fixture()?.historyReads() ?? 0;
    await get('/coins/BTC');
    expect(fixture()?.historyReads()).toBeGreaterThan(reads);
  });
});
