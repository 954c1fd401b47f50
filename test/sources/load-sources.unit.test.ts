import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { loadCatalog } from '../../src/catalog/catalog-file.ts';
import { loadConfig } from '../../src/config.ts';
import { projectRoot } from '../../src/project-root.ts';
import { builtInSources } from '../../src/sources/default-sources.ts';
import { loadSources, parseSources, readSourcesFile } from '../../src/sources/load-sources.ts';
import { SourcesFileError } from '../../src/sources/problem.ts';
import { routesOf } from '../../src/sources/sources-setup.ts';

const catalog = loadCatalog();
const presetPath = (name: string) => join(projectRoot, 'sources', `${name}.yaml`);

/** The report lines of a file that must be refused. */
function problemsOf(text: string, env: NodeJS.ProcessEnv = {}): string[] {
  try {
    parseSources(text, 'sources.yaml', { catalog, env });
  } catch (error) {
    if (error instanceof SourcesFileError) return [...error.problems];
    throw error;
  }
  throw new Error('the file was accepted');
}

const twoSources = `sources:
  - { name: binance, kind: binance, url: "wss://stream.binance.com:9443" }
  - { name: nobitex, kind: nobitex, url: "https://apiv2.nobitex.ir", poll_seconds: 10 }
`;

describe('sources presets', () => {
  it.each(['binance-nobitex', 'binance-failover', 'wallex', 'iran'])('sources/%s.yaml is valid', (name) => {
    const setup = readSourcesFile(presetPath(name), { catalog, env: {} });
    expect(setup.origin).toBe(presetPath(name));
    expect(routesOf(setup, 'USDT').toman.length).toBeGreaterThan(0);
  });

  it('binance-nobitex.yaml is the built-in set-up with the default settings', () => {
    const { origin: _file, ...fromFile } = readSourcesFile(presetPath('binance-nobitex'), {
      catalog,
      env: {},
    });
    const { origin: _builtIn, ...builtIn } = builtInSources(loadConfig({}));
    expect(fromFile).toEqual(builtIn);
  });

  it('iran.yaml names no Binance source, and routes every coin through Nobitex then Wallex', () => {
    const setup = readSourcesFile(presetPath('iran'), { catalog, env: {} });
    expect(setup.sources.map((source) => source.kind)).toEqual(['nobitex', 'wallex']);
    expect(routesOf(setup, 'BTC')).toEqual({ usdt: ['nobitex', 'wallex'], toman: ['nobitex', 'wallex'] });
  });
});

describe('loadSources', () => {
  it('without NERKH_SOURCES_FILE is Binance for coins and Nobitex for tether, at the configured URLs', () => {
    const config = loadConfig({
      NERKH_BINANCE_WS_URL: 'ws://127.0.0.1:9001',
      NERKH_BINANCE_REST_URL: 'http://127.0.0.1:9002',
      NERKH_NOBITEX_URL: 'http://127.0.0.1:9003',
      NERKH_NOBITEX_POLL_SECONDS: '30',
    });
    const setup = loadSources(config, catalog, {});
    expect(setup.origin).toBe('built-in default');
    expect(setup.sources).toEqual([
      {
        name: 'binance',
        kind: 'binance',
        url: 'ws://127.0.0.1:9001',
        rest_url: 'http://127.0.0.1:9002',
        secretHeaders: {},
      },
      { name: 'nobitex', kind: 'nobitex', url: 'http://127.0.0.1:9003', poll_seconds: 30, secretHeaders: {} },
    ]);
    expect(routesOf(setup, 'BTC')).toEqual({ usdt: ['binance', 'nobitex'], toman: [] });
    expect(routesOf(setup, 'USDT')).toEqual({ usdt: ['binance', 'nobitex'], toman: ['nobitex'] });
    expect(setup).toMatchObject({ staleMs: 120_000, returnAfterMs: 300_000 });
  });

  it('reads the file NERKH_SOURCES_FILE names, with the credentials it names from the environment', () => {
    const dir = mkdtempSync(join(tmpdir(), 'nerkh-sources-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'sources.yaml');
    writeFileSync(
      file,
      `sources:
  - { name: wallex, kind: wallex, url: "https://api.wallex.ir", api_key_env: WALLEX_KEY }
routes:
  default: { usdt: [wallex], toman: [wallex] }
failover: { stale_seconds: 30, return_after_seconds: 60 }
`,
    );
    const setup = loadSources(loadConfig({ NERKH_SOURCES_FILE: file }), catalog, { WALLEX_KEY: 'k-123' });
    expect(setup.origin).toBe(file);
    expect(setup.sources).toEqual([
      {
        name: 'wallex',
        kind: 'wallex',
        url: 'https://api.wallex.ir',
        api_key_env: 'WALLEX_KEY',
        secretHeaders: { 'x-api-key': 'k-123' },
      },
    ]);
    expect(setup).toMatchObject({ staleMs: 30_000, returnAfterMs: 60_000 });
  });

  it('refuses a file it cannot read, naming it', () => {
    const config = loadConfig({ NERKH_SOURCES_FILE: '/nonexistent/sources.yaml' });
    expect(() => loadSources(config, catalog, {})).toThrow(
      'sources file /nonexistent/sources.yaml has a mistake:\n/nonexistent/sources.yaml: cannot read (ENOENT)',
    );
  });

  it('accepts JSON, which is YAML too', () => {
    const setup = parseSources(
      JSON.stringify({
        sources: [{ name: 'nobitex', kind: 'nobitex', url: 'https://apiv2.nobitex.ir' }],
        routes: { default: { usdt: ['nobitex'], toman: ['nobitex'] } },
      }),
      'sources.json',
      { catalog, env: {} },
    );
    expect(setup.sources[0]).toMatchObject({ name: 'nobitex', kind: 'nobitex' });
  });
});

describe('parseSources: a json-http source', () => {
  it('takes a declarative mapping, and its headers from the environment variables it names', () => {
    const setup = parseSources(
      `sources:
  - name: my-panel
    kind: json-http
    url: https://panel.example/api/prices
    poll_seconds: 5
    headers_env: { Authorization: PANEL_TOKEN }
    mapping:
      quotes: data.markets
      key: pair
      pair: { separator: "-", suffixes: { TMN: toman, USDT: usdt } }
      ask: sell
      change: change24h
      time: updated_at
routes:
  default: { usdt: [my-panel], toman: [my-panel] }
`,
      'sources.yaml',
      { catalog, env: { PANEL_TOKEN: 'Bearer t0ken' } },
    );
    expect(setup.sources[0]).toMatchObject({
      kind: 'json-http',
      mapping: {
        quotes: 'data.markets',
        key: 'pair',
        pair: { separator: '-', suffixes: { TMN: 'toman', USDT: 'usdt' } },
        ask: 'sell',
      },
      secretHeaders: { Authorization: 'Bearer t0ken' },
    });
  });
});

describe('parseSources: every mistake, at its place in the file', () => {
  it('reports YAML syntax errors with their line and column', () => {
    expect(problemsOf('sources:\n  - { name: binance, kind: binance\nroutes: {}\n')).toEqual([
      expect.stringMatching(/^sources\.yaml:3:1: .*Flow map/),
    ]);
  });

  it('reports a duplicate key', () => {
    expect(problemsOf(`${twoSources}routes: { default: { usdt: [binance] } }\nroutes: {}\n`)).toEqual([
      'sources.yaml:5:1: Map keys must be unique',
    ]);
  });

  it('reports an empty file as a document that lacks its parts', () => {
    expect(problemsOf('')).toEqual(['sources.yaml:1:1: /: must be a mapping (key: value)']);
    expect(problemsOf('{}')).toEqual([
      'sources.yaml:1:1: /: missing required field "sources"',
      'sources.yaml:1:1: /: missing required field "routes"',
    ]);
  });

  it('reports an empty list of sources, and a route list naming a source twice', () => {
    expect(problemsOf('sources: []\nroutes: { default: { usdt: [a, a] } }\n')).toEqual([
      'sources.yaml:1:1: /sources: must list at least 1',
      'sources.yaml:2:22: /routes/default/usdt: names the same item twice',
    ]);
  });

  it('lists every shape mistake, each with the line and column of the value or key at fault', () => {
    const text = `sources:
  - name: Binance
    kind: binance
    url: https://stream.binance.com
    poll_seconds: 10
  - name: nobitex
    kind: nobitx
  - name: wallex
    kind: wallex
    url: "https://api.wallex.ir"
    poll_seconds: 0.5
    api_key_env: sk-live-0123456789
routes:
  default: { usdt: [binance], tomans: [] }
  coins:
    btc: { usdt: [wallex] }
failover: { stale_seconds: 0 }
`;
    expect(problemsOf(text)).toEqual([
      'sources.yaml:2:11: /sources/0/name: must be a name of lower-case letters, digits and "-", starting with a letter (at most 32)',
      'sources.yaml:4:10: /sources/0/url: must be a ws:// or wss:// URL without credentials in it',
      'sources.yaml:5:5: /sources/0/poll_seconds: unknown field "poll_seconds"; the fields here are: name, symbols, coins_per_quote, kind, url, rest_url',
      'sources.yaml:7:11: /sources/1/kind: must be one of "binance", "nobitex", "wallex", "json-http"',
      'sources.yaml:11:19: /sources/2/poll_seconds: must be >= 3',
      'sources.yaml:12:18: /sources/2/api_key_env: must be the NAME of an environment variable (upper case, digits, "_") that holds the secret, never the secret itself',
      'sources.yaml:14:31: /routes/default/tomans: unknown field "tomans"; the fields here are: usdt, toman',
      'sources.yaml:16:5: /routes/coins/btc: "btc" is not a valid key here: it must be a catalog symbol in upper case, e.g. BTC',
      'sources.yaml:17:28: /failover/stale_seconds: must be > 0',
    ]);
  });

  it('refuses credentials written into a URL', () => {
    expect(
      problemsOf(`sources:
  - { name: nobitex, kind: nobitex, url: "https://user:secret@apiv2.nobitex.ir" }
routes: { default: { usdt: [nobitex] } }
`),
    ).toEqual([
      'sources.yaml:2:42: /sources/0/url: must be an http:// or https:// URL without credentials in it',
    ]);
  });

  it('lists every broken rule between the parts: names, routes, currencies, tether, credentials, timing', () => {
    const text = `${twoSources}  - { name: nobitex, kind: wallex, url: "https://api.wallex.ir" }
  - { name: panel, kind: json-http, url: "https://panel.example/p", headers_env: { X-Key: PANEL_KEY }, mapping: { quotes: data, key: s, ask: a } }
  - { name: spare, kind: wallex, url: "https://api.wallex.ir", api_key_env: SPARE_KEY, symbols: { XBT: BTC } }
routes:
  default: { usdt: [binance, kraken], toman: [binance] }
  coins:
    NOPE: { usdt: [nobitex] }
    USDT: { usdt: [binance], toman: [panel] }
failover: { stale_seconds: 10 }
`;
    expect(problemsOf(text)).toEqual([
      'sources.yaml:4:13: /sources/2/name: "nobitex" already names the source at /sources/1; names must be unique',
      'sources.yaml:5:91: /sources/3/headers_env/X-Key: environment variable PANEL_KEY is not set (the file names it; its value is the secret)',
      'sources.yaml:5:104: /sources/3/mapping: needs `currency` (usdt, toman or rial) or a `pair` that says it',
      'sources.yaml:6:5: /sources/4: "spare" is in no route, so it would never be asked for a price; name it in routes or remove it',
      'sources.yaml:6:77: /sources/4/api_key_env: environment variable SPARE_KEY is not set (the file names it; its value is the secret)',
      'sources.yaml:6:99: /sources/4/symbols/XBT: XBT is not in the catalog',
      'sources.yaml:8:30: /routes/default/usdt/1: no source is named "kraken"; the sources are: binance, nobitex, panel, spare',
      'sources.yaml:8:47: /routes/default/toman/0: "binance" (binance) cannot quote coins in toman, only in usdt',
      'sources.yaml:10:5: /routes/coins/NOPE: NOPE is not in the catalog',
      'sources.yaml:11:13: /routes/coins/USDT/usdt: tether is worth 1 tether by definition: give USDT a toman route only (its toman price is usdt_irt)',
      "sources.yaml:12:28: /failover/stale_seconds: a stale time of 10 s is not longer than nobitex's poll interval (10 s): its coins would look stale between two polls",
      "sources.yaml:12:28: /failover/stale_seconds: a stale time of 10 s is not longer than panel's poll interval (10 s): its coins would look stale between two polls",
    ]);
  });

  it('refuses a json-http source whose units are not declared, at its place: IRT is never guessed', () => {
    expect(
      problemsOf(`sources:
  - name: exchange
    kind: json-http
    url: https://exchange.example/markets
    mapping:
      quotes: data
      key: symbol
      pair: { separator: "_" }
      ask: sell
routes:
  default: { toman: [exchange] }
`),
    ).toEqual([
      'sources.yaml:8:7: /sources/0/mapping/pair: declare every quote code and its unit in `suffixes`, e.g. { USDT: usdt, TMN: toman, IRR: rial }: nerkh never guesses a unit (IRT is toman on Bitpin and Tabdeal, rial on Nobitex)',
    ]);
  });

  it('refuses one URL per market whose round at the exchange limit outlasts the stale time', () => {
    expect(
      problemsOf(`sources:
  - name: book
    kind: json-http
    url: https://exchange.example/orderbook/{symbol}_{quote}/
    max_requests_per_minute: 1
    mapping: { ask: asks.0.0, pair: { suffixes: { IRT: toman } } }
routes:
  default: { toman: [book] }
`),
    ).toEqual([
      "sources.yaml:2:5: /sources/0: a stale time of 120 s is not longer than book's poll interval (9360 s of one URL per market: 156 markets at 1 a minute): its coins would look stale between two polls",
    ]);
  });

  it('requires a toman route for tether, and some source for every coin', () => {
    expect(
      problemsOf(`${twoSources}routes:
  default: { usdt: [binance] }
  coins:
    BTC: { usdt: [] }
`),
    ).toEqual([
      'sources.yaml:3:5: /sources/1: "nobitex" is in no route, so it would never be asked for a price; name it in routes or remove it',
      'sources.yaml:4:1: /routes: tether needs a toman route (routes.coins.USDT.toman, or routes.default.toman): its toman price is usdt_irt, which every toman price derived from tether needs',
      'sources.yaml:7:5: /routes/coins/BTC: leaves BTC with no source: give usdt or toman (or both) at least one source',
    ]);
  });
});
