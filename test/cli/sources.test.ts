import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { loadCatalog } from '../../src/catalog/catalog-file.ts';
import { ExchangeSimulator } from '../../src/simulator/exchange-simulator.ts';
import { runCli } from '../support/run-cli.ts';
import { againstSimulator, presetFile } from '../support/simulated-sources.ts';

/** `nerkh sources check` as an operator runs it, against the exchange simulator. */

const symbols = new Set(['USDT', 'BTC', 'ETH', 'DOGE', 'SHIB']);
const catalog = loadCatalog().filter((entry) => symbols.has(entry.symbol));
const dir = mkdtempSync(join(tmpdir(), 'nerkh-sources-check-'));
const catalogFile = join(dir, 'catalog.json');
let sim: ExchangeSimulator;

beforeAll(async () => {
  writeFileSync(catalogFile, JSON.stringify(catalog));
  // No random walk: the prices printed can be compared with the simulator's.
  sim = await ExchangeSimulator.start({ catalog, seed: 16, autoTick: false });
});
afterAll(async () => {
  await sim.stop();
  rmSync(dir, { recursive: true, force: true });
});

const check = (args: string[], env: Record<string, string> = {}) =>
  runCli(['sources', 'check', ...args], { NERKH_CATALOG: catalogFile, ...env });

/** The rows of the printed table, by symbol: [source, sell_usdt, sell_irt, as_of]. */
function printedRows(stdout: string): Map<string, string[]> {
  const rows = new Map<string, string[]>();
  for (const line of stdout.split('\n')) {
    const cells = line.trim().split(/\s{2,}/);
    if (cells.length === 5 && symbols.has(cells[0] as string)) rows.set(cells[0] as string, cells.slice(1));
  }
  return rows;
}

/** The comparison table's rows, by `SYMBOL currency`: the spread and the asks, as printed. */
function comparedRows(stdout: string): Map<string, string> {
  const rows = new Map<string, string>();
  const lines = stdout.split('\n');
  for (const line of lines.slice(lines.findIndex((l) => l.startsWith('symbol  currency')) + 1)) {
    const match = /^(\S+)\s+(toman|usdt)\s+(.*)$/.exec(line);
    if (match) rows.set(`${match[1]} ${match[2]}`, match[3] as string);
  }
  return rows;
}

/** The lines of a table whose header starts with `header`, header first, up to the blank line after it. */
function tableAt(stdout: string, header: RegExp): string[] {
  const lines = stdout.split('\n');
  const start = lines.findIndex((line) => header.test(line));
  if (start === -1) return [];
  const end = lines.indexOf('', start);
  return lines.slice(start, end === -1 ? undefined : end);
}

function sourceLines(stdout: string): string[] {
  const lines = stdout.split('\n');
  return lines.slice(lines.findIndex((line) => line.startsWith('source '))).filter((line) => line !== '');
}

describe('nerkh sources check', () => {
  it('tries the built-in set-up: every coin from Binance, Nobitex behind it, tether from Nobitex, each source ok', async () => {
    const result = await check([], {
      NERKH_BINANCE_WS_URL: sim.wsBaseUrl,
      NERKH_BINANCE_REST_URL: sim.restBaseUrl,
      NERKH_NOBITEX_URL: sim.nobitexBaseUrl,
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^Sources: built-in default\. What a snapshot would publish now \(5 rows, source "binance\+nobitex"\):/,
    );
    const usdtIrt = Number(sim.usdtBestSellRial()) / 10;
    const rows = printedRows(result.stdout);
    expect([...rows.keys()]).toEqual(['BTC', 'DOGE', 'ETH', 'SHIB', 'USDT']);
    for (const entry of catalog) {
      const [source, sellUsdt, sellIrt] = rows.get(entry.symbol) as string[];
      if (entry.pair === null) {
        expect([source, sellUsdt, sellIrt]).toEqual(['nobitex', '1', String(usdtIrt)]);
      } else {
        expect([source, Number(sellUsdt)]).toEqual(['binance', Number(sim.askOf(entry.pair))]);
      }
    }
    expect(sourceLines(result.stdout).slice(0, 3)).toEqual([
      'source   kind     reach      result',
      'binance  binance  reachable  ok: quoted 4 of 4 markets',
      // Nobitex is every coin's fallback in tether, and tether's source in toman.
      'nobitex  nobitex  reachable  ok: quoted 5 of 5 markets',
    ]);
    // SHIB is priced per thousand at Nobitex, tether's toman price is in rial: both said at a glance.
    expect(result.stdout).toContain(
      'How each source quotes the markets it reads: the unit of its asks and how many coins one ask prices (each price is published per one coin; --markets lists every market):',
    );
    expect(tableAt(result.stdout, /^source +quoted in/)).toEqual([
      'source   quoted in  coins per quote  markets',
      'binance  usdt       1                4: BTCUSDT, ETHUSDT, DOGEUSDT, SHIBUSDT',
      'nobitex  usdt       1                3: btc-usdt, eth-usdt, doge-usdt',
      'nobitex  usdt       1,000            1: shib-usdt (or 1k_shib-usdt)',
      'nobitex  rial ÷ 10  1                1: usdt-rls',
    ]);
    // Both reach the simulator, which quotes the same asks on both: every coin compared, none flagged.
    expect(result.stdout).toMatch(/^BTC +usdt +0\.00% +binance \S+ \(\+0\.00%\); nobitex \S+ \(\+0\.00%\)$/m);
    expect(result.stdout).toContain('Every source is within 5% of the others on every coin.');
  });

  it('tries the Wallex preset: toman prices are Wallex’s askPrice as quoted, with no ÷ 10', async () => {
    const result = await check([presetFile(sim, 'wallex', dir)]);
    expect(result.code).toBe(0);
    const rows = printedRows(result.stdout);
    for (const symbol of ['BTC', 'ETH', 'DOGE', 'USDT']) {
      const [source, , sellIrt] = rows.get(symbol) as string[];
      expect([symbol, source, Number(sellIrt)]).toEqual([
        symbol,
        'wallex',
        Math.round(Number(sim.tomanAskOf(symbol))),
      ]);
    }
    expect(sourceLines(result.stdout).slice(0, 4)).toEqual([
      'source   kind     reach      result',
      'wallex   wallex   reachable  ok: quoted 9 of 9 markets',
      'binance  binance  reachable  ok: quoted 4 of 4 markets',
      'nobitex  nobitex  reachable  ok: quoted 1 of 1 markets',
    ]);
  });

  it('lists every market one a line with --markets: SHIB at Nobitex per 1,000 in rial ÷ 10, Wallex in toman', async () => {
    const result = await check([presetFile(sim, 'iran', dir), '--markets']);
    expect(result.code).toBe(0);
    const rows = tableAt(result.stdout, /^source +coin +currency/);
    expect(rows).toHaveLength(1 + 18);
    expect(rows).toEqual(
      expect.arrayContaining([
        'source   coin  currency  market                       quoted in  coins per quote',
        'nobitex  SHIB  usdt      shib-usdt (or 1k_shib-usdt)  usdt       1,000',
        'nobitex  SHIB  toman     shib-rls (or 1k_shib-rls)    rial ÷ 10  1,000',
        'nobitex  USDT  toman     usdt-rls                     rial ÷ 10  1',
        'nobitex  BTC   toman     btc-rls                      rial ÷ 10  1',
        'wallex   SHIB  toman     SHIBTMN                      toman      1',
        'wallex   BTC   usdt      BTCUSDT                      usdt       1',
      ]),
    );
    // The published SHIB is one coin's price: Nobitex's thousand ÷ 1 000, its rial ÷ 10.
    const [source, , sellIrt] = printedRows(result.stdout).get('SHIB') as string[];
    expect([source, Number(sellIrt)]).toEqual(['nobitex', Math.round(Number(sim.tomanAskOf('SHIB')))]);
    expect(result.stdout).not.toContain('How each source quotes');
  });

  it('names the reason a source fails, prices the coins from the fallbacks, and exits 1', async () => {
    sim.setFault('geo-block', 'binance');
    onTestFinished(() => sim.setFault('none', 'binance'));
    const result = await check([presetFile(sim, 'binance-failover', dir), '--json']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('nerkh: a source failed: binance\n');
    const body = JSON.parse(result.stdout);
    expect(body.source).toBe('nobitex');
    expect(body.rates.map((row: { source: string }) => row.source)).toEqual(Array(5).fill('nobitex'));
    expect(body.sources[0]).toMatchObject({
      name: 'binance',
      kind: 'binance',
      reach: 'refused',
      ok: false,
      detail: expect.stringMatching(
        // REST's 451 carries Binance's message; the stream upgrade's has an empty body.
        /^HTTP 451(: Service unavailable from a restricted location according to| Unavailable For Legal Reasons)/,
      ),
      quoted: 0,
      missing: ['BTC/usdt', 'ETH/usdt', 'DOGE/usdt', 'SHIB/usdt'],
    });
    expect(
      body.sources.slice(1).map((trial: { name: string; ok: boolean }) => [trial.name, trial.ok]),
    ).toEqual([
      ['nobitex', true],
      ['wallex', true],
    ]);
    // Every market each source reads, in full whatever the text form groups.
    expect(body.sources[1].markets).toEqual([
      { symbol: 'BTC', currency: 'usdt', market: 'btc-usdt', quoted_in: 'usdt', coins_per_quote: 1 },
      { symbol: 'ETH', currency: 'usdt', market: 'eth-usdt', quoted_in: 'usdt', coins_per_quote: 1 },
      { symbol: 'DOGE', currency: 'usdt', market: 'doge-usdt', quoted_in: 'usdt', coins_per_quote: 1 },
      {
        symbol: 'SHIB',
        currency: 'usdt',
        market: 'shib-usdt or 1k_shib-usdt',
        quoted_in: 'usdt',
        coins_per_quote: 1000,
      },
      { symbol: 'USDT', currency: 'toman', market: 'usdt-rls', quoted_in: 'rial', coins_per_quote: 1 },
    ]);
    expect(body.sources[0].markets).toHaveLength(4);
  });

  it("reads a made-up exchange's document through a json-http mapping", async () => {
    const file = join(dir, 'panel.yaml');
    writeFileSync(
      file,
      againstSimulator(
        sim,
        `sources:
  - name: my-panel
    kind: json-http
    url: "{panel}"
    mapping: { quotes: data.markets, key: pair, pair: { separator: "-", suffixes: { TMN: toman, USDT: usdt } }, ask: sell, change: change24h, time: updated_at }
routes:
  default: { usdt: [my-panel], toman: [my-panel] }
`,
      ),
    );
    const result = await check([file, '--json']);
    expect(result.code).toBe(0);
    const body = JSON.parse(result.stdout);
    expect(body.source).toBe('my-panel');
    const btc = body.rates.find((row: { symbol: string }) => row.symbol === 'BTC');
    expect(btc).toMatchObject({ source: 'my-panel', sell_irt: Math.round(Number(sim.tomanAskOf('BTC'))) });
    expect(body.usdt_irt).toBe(Math.round(Number(sim.tomanAskOf('USDT'))));
    expect(body.sources).toEqual([
      expect.objectContaining({ name: 'my-panel', ok: true, requested: 9, quoted: 9, missing: [] }),
    ]);
  });

  it('tries the Bitpin preset: both sources reachable, every coin they share compared, none flagged', async () => {
    // The preset names ten coins: a catalog and a simulator that list them all.
    const named = new Set(['USDT', 'BTC', 'ETH', 'SOL', 'XRP', 'DOGE', 'ADA', 'TRX', 'TON', 'LTC']);
    const coins = loadCatalog().filter((entry) => named.has(entry.symbol));
    const own = await ExchangeSimulator.start({ catalog: coins, seed: 16, autoTick: false });
    onTestFinished(() => own.stop());
    const coinsFile = join(dir, 'bitpin-catalog.json');
    writeFileSync(coinsFile, JSON.stringify(coins));
    // As shipped, but at 1 200 requests a minute: the simulator is ours, the 60 are Bitpin's.
    const preset = presetFile(own, 'bitpin', dir);
    writeFileSync(
      preset,
      readFileSync(preset, 'utf8').replace('max_requests_per_minute: 60', 'max_requests_per_minute: 1200'),
    );
    const result = await runCli(['sources', 'check', preset], { NERKH_CATALOG: coinsFile });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(sourceLines(result.stdout).slice(0, 3)).toEqual([
      'source   kind       reach      result',
      'bitpin   json-http  reachable  ok: quoted 19 of 19 markets',
      'nobitex  nobitex    reachable  ok: quoted 19 of 19 markets',
    ]);
    expect(tableAt(result.stdout, /^source +quoted in/).slice(0, 3)).toEqual([
      'source   quoted in  coins per quote  markets',
      'bitpin   usdt       1                9: BTC_USDT, ETH_USDT, SOL_USDT, XRP_USDT, DOGE_USDT, and 4 more',
      'bitpin   toman      1                10: USDT_IRT, BTC_IRT, ETH_IRT, SOL_IRT, XRP_IRT, and 5 more',
    ]);
    const compared = comparedRows(result.stdout);
    expect(compared.size).toBe(19);
    expect(compared.get('BTC toman')).toBe(
      `0.00%   bitpin ${own.tomanAskOf('BTC')} (+0.00%); nobitex ${own.tomanAskOf('BTC')} (+0.00%)`,
    );
    expect(result.stdout).toContain('Every source is within 5% of the others on every coin.');
  });

  it('flags a source configured as rial where it quotes toman, alone among three, and exits 1', async () => {
    const file = join(dir, 'bitpin-as-rial.yaml');
    writeFileSync(
      file,
      againstSimulator(
        sim,
        `sources:
  - name: bitpin
    kind: json-http
    url: https://api.bitpin.ir/api/v1/mth/orderbook/{symbol}_{quote}/
    max_requests_per_minute: 600
    mapping: { ask: asks.0.0, pair: { suffixes: { IRT: rial } } }
  - { name: nobitex, kind: nobitex, url: https://apiv2.nobitex.ir }
  - { name: wallex, kind: wallex, url: https://api.wallex.ir }
routes:
  default: { usdt: [nobitex], toman: [bitpin, nobitex, wallex] }
`,
      ),
    );
    const result = await check([file, '--max-deviation', '3']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('nerkh: a source deviates more than 3% from the others: bitpin\n');
    const btc = comparedRows(result.stdout).get('BTC toman') as string;
    const toman = Number(sim.tomanAskOf('BTC'));
    expect(btc).toBe(
      `900.00%  bitpin ${toman / 10} (-90.00%, DEVIATES, 10x low: a toman price read as rial?); nobitex ${toman} (+0.00%); wallex ${toman} (+0.00%)`,
    );
    expect(result.stdout).toContain('Deviating beyond 3%: bitpin on 5 coins.');
    const json = JSON.parse((await check([file, '--json'])).stdout);
    expect(json.max_deviation_pct).toBe(5);
    expect(json.comparisons.find((row: { symbol: string }) => row.symbol === 'USDT')).toMatchObject({
      currency: 'toman',
      sources: [
        { source: 'bitpin', deviating: true, unit_hint: 'ten-times-low' },
        { source: 'nobitex', deviating: false, unit_hint: null },
        { source: 'wallex', deviating: false, unit_hint: null },
      ],
    });
  });

  it('lists every mistake of an invalid file with its place, and exits 2 without contacting a source', async () => {
    const file = join(dir, 'broken.yaml');
    writeFileSync(
      file,
      'sources:\n  - { name: wallex, kind: wallex, url: "https://api.wallex.ir" }\nroutes:\n  default: { usdt: [walex] }\n',
    );
    const result = await check([file]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      [
        `nerkh: sources file ${file} has 3 mistakes:`,
        `${file}:2:5: /sources/0: "wallex" is in no route, so it would never be asked for a price; name it in routes or remove it`,
        `${file}:3:1: /routes: tether needs a toman route (routes.coins.USDT.toman, or routes.default.toman): its toman price is usdt_irt, which every toman price derived from tether needs`,
        `${file}:4:21: /routes/default/usdt/0: no source is named "walex"; the sources are: wallex`,
        '',
      ].join('\n'),
    );
  });

  it('explains itself in its help', async () => {
    const result = await runCli(['sources', 'check', '--help'], {});
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: nerkh sources check [options] [file]');
    expect(result.stdout).toContain('FILE:LINE:COL: /pointer: message (exit 2)');
    expect(result.stdout).toContain('Exits 1 when a source failed or deviates.');
    expect(result.stdout).toContain('--max-deviation <percent>');
    expect(result.stdout).toContain('--markets');
    expect(result.stdout).toContain('(usdt, toman, or rial ÷ 10 into toman)');
  });
});
