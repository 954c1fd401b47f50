import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { loadCatalog } from '../../src/catalog/catalog-file.ts';
import { trySources } from '../../src/collector/try-sources.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { projectRoot } from '../../src/project-root.ts';
import { ExchangeSimulator } from '../../src/simulator/exchange-simulator.ts';
import { parseSources } from '../../src/sources/load-sources.ts';

/**
 * The json-http presets for Ramzinex, Bitpin, Tabdeal and Aban Tether, fed their exchange's documented or
 * recorded answer (test/fixtures/<exchange>/, each with its source named in a README), end to end:
 * the preset file as shipped, its URL pointed at a server that answers with the fixture, Nobitex
 * (tether's toman price) from the simulator, and the row nerkh would publish.
 */

const fixture = (path: string) => readFileSync(join(projectRoot, 'test', 'fixtures', path), 'utf8');

/** Answers each listed path (with its query) with its fixture, anything else with 404. */
async function fixtureServer(bodies: Record<string, string>): Promise<string> {
  const asked: string[] = [];
  const server = http.createServer((req, res) => {
    asked.push(req.url ?? '');
    const body = bodies[req.url ?? ''];
    res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/json' });
    res.end(body ?? '{"detail":"Not found."}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

let sim: ExchangeSimulator;
beforeAll(async () => {
  sim = await ExchangeSimulator.start({
    catalog: loadCatalog().filter((entry) => entry.symbol === 'USDT'),
    seed: 3,
    autoTick: false,
  });
  // Tether's toman price, usdt_irt: 1 052 990 rial is 105 299 toman.
  sim.setUsdtBestSellRial('1052990');
});
afterAll(() => sim?.stop());

/** The preset as shipped, its exchange at `exchangeUrl` and Nobitex at the simulator, tried once. */
async function tryPreset(preset: string, realBase: string, exchangeUrl: string) {
  const text = readFileSync(join(projectRoot, 'sources', `${preset}.yaml`), 'utf8').replaceAll(
    realBase,
    exchangeUrl,
  );
  return trySetup(text, `${preset}.yaml`);
}

/** A sources file, Nobitex at the simulator, tried once. */
async function trySetup(yaml: string, name: string) {
  const catalog = loadCatalog();
  const text = yaml.replaceAll('https://apiv2.nobitex.ir', sim.nobitexBaseUrl);
  const setup = parseSources(text, name, { catalog, env: {} });
  const result = await trySources({
    config: loadConfig({}),
    catalog,
    sources: setup,
    logger: createLogger('silent'),
    // Every market asked once at 20 ms apart, not at the exchange's one a second: the server is ours.
    tuning: { minPollMs: 20 },
    timeoutMs: 1_500,
  });
  const row = (symbol: string) => result.draft.rates.find((rate) => rate.symbol === symbol);
  return { result, row };
}

describe("sources/ramzinex.yaml on Ramzinex's list of markets, as ccxt's fork records it", () => {
  const LIST = '/exchange/api/v1.0/exchange/pairs';

  it('finds BTC by the base and quote its market names and publishes sell 39 999 989 872 rial', async () => {
    const base = await fixtureServer({ [LIST]: fixture('ramzinex/pairs-btc.json') });
    const { result, row } = await tryPreset('ramzinex', 'https://publicapi.ramzinex.com', base);
    expect(result.servedBy.get('BTC')).toBe('ramzinex');
    // sell_irt: sell 39 999 989 872 rial ÷ 10 = 3 999 998 987.2 toman, rounded: 3 999 998 987
    // (not buy, 39 909 989 891, the bid). sell_usdt: derived, 3 999 998 987 ÷ 105 299 (tether from
    // Nobitex, the simulator) = 37 987.055 78…, to 8 digits 37987.056.
    expect(row('BTC')).toMatchObject({ symbol: 'BTC', sell_irt: 3_999_998_987, sell_usdt: 37987.056 });
    // Tether's Ramzinex market is not in the list: it is missing, Nobitex serves it.
    expect(result.servedBy.get('USDT')).toBe('nobitex');
    expect(result.draft.usdt_irt).toBe(105_299);
  });

  it('never reads a market that names another base: BTC is missing, not priced at BNB', async () => {
    const body = JSON.parse(fixture('ramzinex/pairs-btc.json')) as { data: Record<string, unknown>[] };
    const [btc] = body.data;
    const other = { ...btc, base_currency_symbol: { en: 'bnb', fa: 'بی ان بی' } };
    const base = await fixtureServer({ [LIST]: JSON.stringify({ data: [other] }) });
    const { result } = await tryPreset('ramzinex', 'https://publicapi.ramzinex.com', base);
    expect(result.servedBy.get('BTC')).not.toBe('ramzinex');
    expect(result.sources.find((trial) => trial.name === 'ramzinex')?.missing).toContain('BTC/toman');
  });

  it('never reads a market quoted in another currency: a BTC/USDT element is not the rial price', async () => {
    const body = JSON.parse(fixture('ramzinex/pairs-btc.json')) as { data: Record<string, unknown>[] };
    const [btc] = body.data;
    const usdt = { ...btc, quote_currency_symbol: { en: 'usdt', fa: 'تتر' }, sell: 97_000 };
    const base = await fixtureServer({ [LIST]: JSON.stringify({ data: [usdt] }) });
    const { result } = await tryPreset('ramzinex', 'https://publicapi.ramzinex.com', base);
    expect(result.servedBy.get('BTC')).not.toBe('ramzinex');
  });
});

describe('sources/bitpin.yaml on the order book Bitpin documents', () => {
  it("publishes BTC at the book's best ask, 10 248 310 000 toman, sell_usdt = that ÷ 105 299", async () => {
    const base = await fixtureServer({
      '/api/v1/mth/orderbook/BTC_IRT/': fixture('bitpin/orderbook-BTC_IRT.json'),
    });
    const { result, row } = await tryPreset('bitpin', 'https://api.bitpin.ir', base);
    expect(result.servedBy.get('BTC')).toBe('bitpin');
    expect(row('BTC')).toMatchObject({ symbol: 'BTC', sell_irt: 10_248_310_000, sell_usdt: 97325.806 });
  });
});

describe('sources/tabdeal.yaml on the depth Tabdeal recorded in its Postman collection', () => {
  it("publishes BTC at the depth's one ask, 99 999 999 toman, sell_usdt = that ÷ 105 299", async () => {
    const base = await fixtureServer({
      '/r/api/v1/depth?symbol=BTCIRT&limit=1': fixture('tabdeal/depth-BTCIRT.json'),
    });
    const { result, row } = await tryPreset('tabdeal', 'https://api1.tabdeal.org', base);
    expect(result.servedBy.get('BTC')).toBe('tabdeal');
    // sell_irt: asks[0][0] "99999999.00000000", IRT is toman: 99 999 999 (the empty bids unread).
    // sell_usdt: 99 999 999 ÷ 105 299 = 949.676 63…, published to 8 digits as 949.67663.
    expect(row('BTC')).toMatchObject({ symbol: 'BTC', sell_irt: 99_999_999, sell_usdt: 949.67663 });
  });
});

describe("the wallex kind on the /v1/markets answer Wallex's older docs print", () => {
  // Only Wallex for BTC, so the row is Wallex's: no tether market in the answer, so sell_usdt is
  // derived from the toman price and tether's (Nobitex, the simulator, 105 299 toman).
  const setup = (url: string) => `
sources:
  - { name: wallex, kind: wallex, url: ${url}, poll_seconds: 10 }
  - { name: nobitex, kind: nobitex, url: https://apiv2.nobitex.ir, poll_seconds: 10 }
routes:
  default: { usdt: [wallex], toman: [wallex] }
  coins:
    USDT: { toman: [nobitex] }
`;

  it('publishes BTC at askPrice 1 324 135 008 toman (TMN: no ÷ 10), change −3.04 %', async () => {
    const base = await fixtureServer({ '/v1/markets': fixture('wallex/markets-btctmn.json') });
    const { result, row } = await trySetup(setup(base), 'wallex-docs.yaml');
    expect(result.servedBy.get('BTC')).toBe('wallex');
    // sell_irt: askPrice "1324135008" as is, not bidPrice "1323000001" nor lastPrice.
    // sell_usdt: 1 324 135 008 ÷ 105 299 = 12 575.000 79…, published to 8 digits as 12575.001.
    expect(row('BTC')).toMatchObject({
      symbol: 'BTC',
      sell_irt: 1_324_135_008,
      sell_usdt: 12575.001,
      change_24h: -3.04,
    });
  });
});

describe("sources/abantether.yaml on /manager/coins/data, as ccxt's fork records it", () => {
  const DATA = '/manager/coins/data';

  it('publishes price_buy, the higher price, as the toman ask of tether and bitcoin', async () => {
    const base = await fixtureServer({ [DATA]: fixture('abantether/coins-data.json') });
    const { result, row } = await tryPreset('abantether', 'https://api.abantether.com', base);
    expect(result.servedBy.get('USDT')).toBe('abantether');
    expect(result.servedBy.get('BTC')).toBe('abantether');
    // usdt_irt: tether's price_buy "113540.0" toman (price_sell "112630.0" is what a seller is
    // paid): 113 540. BTC: price_buy "13049114870.800000000" toman, rounded: 13 049 114 871;
    // sell_usdt derived: 13 049 114 871 ÷ 113 540 = 114 929.671 2…, to 8 digits 114929.67.
    expect(result.draft.usdt_irt).toBe(113_540);
    expect(row('USDT')).toMatchObject({ symbol: 'USDT', sell_irt: 113_540, sell_usdt: 1 });
    expect(row('BTC')).toMatchObject({ symbol: 'BTC', sell_irt: 13_049_114_871, sell_usdt: 114929.67 });
  });

  it('rejects a coin users cannot buy now (is_buy_active false), and Nobitex serves it', async () => {
    const body = JSON.parse(fixture('abantether/coins-data.json')) as { data: Record<string, unknown>[] };
    const [usdt, btc] = body.data;
    const closed = { data: [{ ...usdt, is_buy_active: false }, btc] };
    const base = await fixtureServer({ [DATA]: JSON.stringify(closed) });
    const { result } = await tryPreset('abantether', 'https://api.abantether.com', base);
    expect(result.servedBy.get('USDT')).toBe('nobitex');
    expect(result.draft.usdt_irt).toBe(105_299);
    expect(result.sources.find((trial) => trial.name === 'abantether')?.rejected).toMatchObject({
      'market-closed': 1,
    });
  });

  it('publishes nothing from the old document it no longer reads', async () => {
    const old = [{ symbol: 'USDT', priceBuy: '59200.0', active: true }];
    const base = await fixtureServer({ [DATA]: JSON.stringify(old) });
    const { result } = await tryPreset('abantether', 'https://api.abantether.com', base);
    expect(result.servedBy.get('USDT')).toBe('nobitex');
  });
});
