import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';

describe('loadConfig', () => {
  it('keeps at least the 7 days the price charts draw, at the default refresh', () => {
    const config = loadConfig({});
    expect(config.NERKH_SNAPSHOT_RETENTION * config.NERKH_REFRESH_SECONDS).toBeGreaterThanOrEqual(7 * 86_400);
  });

  it('applies the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      PORT: 8080,
      HOST: '127.0.0.1',
      NERKH_DATA_DIR: './data',
      NERKH_REFRESH_SECONDS: 600,
      NERKH_RATE_LIMIT: 60,
      NERKH_RATE_WINDOW_SECONDS: 60,
      NERKH_NOBITEX_POLL_SECONDS: 10,
      NERKH_MARKUP_PCT: 0,
      NERKH_MAX_JUMP_PCT: 50,
      LOG_LEVEL: 'info',
      NERKH_HEADERS_TIMEOUT_MS: 10_000,
      NERKH_REQUEST_TIMEOUT_MS: 30_000,
      NERKH_KEEP_ALIVE_TIMEOUT_MS: 72_000,
      NERKH_MAX_CONNECTIONS: 10_000,
      NERKH_DRAIN_SECONDS: 10,
      NERKH_MAX_REQUESTS_PER_SOCKET: 0,
      publicUrl: 'http://127.0.0.1:8080',
      coinUrlTemplate: 'http://127.0.0.1:8080/coins/{symbol}',
    });
    expect(config.markupOverrides.size).toBe(0);
  });

  it('converts numbers and derives the public and coin URLs', () => {
    const config = loadConfig({
      PORT: '9000',
      NERKH_PUBLIC_URL: 'https://rates.example.ir/',
      NERKH_REFRESH_SECONDS: '60',
      NERKH_MARKUP_PCT: '0.5',
      NERKH_MARKUP_OVERRIDES: 'btc=0.25, ETH=-1',
    });
    expect(config.PORT).toBe(9000);
    expect(config.NERKH_REFRESH_SECONDS).toBe(60);
    expect(config.NERKH_MARKUP_PCT).toBe(0.5);
    expect(config.publicUrl).toBe('https://rates.example.ir');
    expect(config.coinUrlTemplate).toBe('https://rates.example.ir/coins/{symbol}');
    expect([...config.markupOverrides]).toEqual([
      ['BTC', 0.25],
      ['ETH', -1],
    ]);
  });

  it('derives a public URL that reaches the listening host: IPv6 in brackets, a wildcard as loopback', () => {
    expect(loadConfig({ HOST: '::1', PORT: '9000' }).publicUrl).toBe('http://[::1]:9000');
    expect(loadConfig({ HOST: '0.0.0.0' }).publicUrl).toBe('http://127.0.0.1:8080');
    expect(loadConfig({ HOST: '::' }).publicUrl).toBe('http://127.0.0.1:8080');
    expect(loadConfig({ HOST: 'rates.local' }).publicUrl).toBe('http://rates.local:8080');
  });

  it.each([
    ['NERKH_REFRESH_SECONDS', 'ten'],
    ['NERKH_REFRESH_SECONDS', '0'],
    ['PORT', '70000'],
    ['NERKH_BINANCE_WS_URL', 'http://stream.example'],
    ['NERKH_MAX_JUMP_PCT', '0'],
    ['LOG_LEVEL', 'loud'],
  ])('refuses %s=%s, naming the variable', (key, value) => {
    expect(() => loadConfig({ [key]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [key]: value })).toThrow(new RegExp(`^invalid configuration: ${key}=`));
  });

  it('refuses a headers timeout longer than the request timeout, naming both', () => {
    expect(() =>
      loadConfig({ NERKH_HEADERS_TIMEOUT_MS: '40000', NERKH_REQUEST_TIMEOUT_MS: '30000' }),
    ).toThrow(/NERKH_HEADERS_TIMEOUT_MS=40000 is longer than NERKH_REQUEST_TIMEOUT_MS=30000/);
  });

  it('takes an http(s) webhook URL for key requests, and refuses another without repeating it (it may hold a token)', () => {
    const url = 'https://hooks.example.test/services/T0/B0/secret-token';
    expect(loadConfig({ NERKH_REQUESTS_WEBHOOK_URL: url }).NERKH_REQUESTS_WEBHOOK_URL).toBe(url);
    for (const bad of ['ftp://hooks.example.test/secret-token', 'https://[secret-token']) {
      let message = '';
      try {
        loadConfig({ NERKH_REQUESTS_WEBHOOK_URL: bad });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(/NERKH_REQUESTS_WEBHOOK_URL/);
      expect(message).not.toContain('secret-token');
    }
  });

  it('names every bad variable at once', () => {
    expect(() => loadConfig({ PORT: 'x', NERKH_RATE_LIMIT: '-1' })).toThrow(/PORT=.*; NERKH_RATE_LIMIT=/);
  });

  it('derives Fastify trustProxy from NERKH_TRUST_PROXY: off, a hop count, or the proxies’ addresses', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ NERKH_TRUST_PROXY: ' ' }).trustProxy).toBe(false);
    expect(loadConfig({ NERKH_TRUST_PROXY: '127.0.0.1, 10.0.0.0/8,' }).trustProxy).toEqual([
      '127.0.0.1',
      '10.0.0.0/8',
    ]);
    const hops = loadConfig({ NERKH_TRUST_PROXY: '2' }).trustProxy;
    if (typeof hops !== 'function') throw new Error('a hop count must become a trust function');
    expect([0, 1, 2].map((hop) => hops('203.0.113.7', hop))).toEqual([true, true, false]);
  });

  it('refuses a malformed markup override, naming the variable and the part', () => {
    expect(() => loadConfig({ NERKH_MARKUP_OVERRIDES: 'BTC=0.5,ETH:1' })).toThrow(
      'NERKH_MARKUP_OVERRIDES: "ETH:1" is not SYMBOL=PERCENT (e.g. BTC=0.5)',
    );
  });

  it("refuses the built-in sources' settings beside NERKH_SOURCES_FILE, which replaces them", () => {
    expect(loadConfig({ NERKH_SOURCES_FILE: 'sources/iran.yaml' }).NERKH_SOURCES_FILE).toBe(
      'sources/iran.yaml',
    );
    expect(() =>
      loadConfig({
        NERKH_SOURCES_FILE: 'sources/iran.yaml',
        NERKH_NOBITEX_URL: 'https://apiv2.nobitex.ir',
        NERKH_NOBITEX_POLL_SECONDS: '20',
      }),
    ).toThrow(
      "invalid configuration: NERKH_NOBITEX_URL, NERKH_NOBITEX_POLL_SECONDS have no effect with NERKH_SOURCES_FILE; set the sources' url and poll_seconds in the file instead",
    );
  });
});
