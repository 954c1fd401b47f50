import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';

/** A folder of its own for the test's secret files, removed when the test ends. */
function secretsDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'nerkh-config-secrets-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The message loadConfig fails with, or '' when it does not. */
function failure(env: NodeJS.ProcessEnv): string {
  try {
    loadConfig(env);
    return '';
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
}

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

  describe('secrets from files (NAME_FILE)', () => {
    const secrets = {
      NERKH_DATABASE_URL: 'postgres://nerkh:db-pass-1@db.internal:5432/nerkh',
      NERKH_REDIS_URL: 'rediss://:redis-pass-2@redis.internal:6380',
      NERKH_FORM_SECRET: 'form-secret-3-0123456789abcdef0123456789abcdef',
      NERKH_REQUESTS_WEBHOOK_URL: 'https://hooks.example.test/services/T0/B0/hook-token-4',
    };

    it('reads each secret setting from the file NAME_FILE names, without its trailing newline', () => {
      const dir = secretsDir();
      const env: NodeJS.ProcessEnv = {};
      for (const [key, value] of Object.entries(secrets)) {
        const path = join(dir, key.toLowerCase());
        // One written by `echo`, one by an editor on Windows, the others without a newline.
        const ending = key === 'NERKH_DATABASE_URL' ? '\n' : key === 'NERKH_FORM_SECRET' ? '\r\n' : '';
        writeFileSync(path, `${value}${ending}`);
        env[`${key}_FILE`] = path;
      }
      expect(loadConfig(env)).toMatchObject(secrets);
    });

    it('refuses a setting given both ways, naming both', () => {
      const dir = secretsDir();
      writeFileSync(join(dir, 'redis_url'), `${secrets.NERKH_REDIS_URL}\n`);
      expect(
        failure({ NERKH_REDIS_URL: secrets.NERKH_REDIS_URL, NERKH_REDIS_URL_FILE: join(dir, 'redis_url') }),
      ).toBe('invalid configuration: NERKH_REDIS_URL and NERKH_REDIS_URL_FILE are both set; set one of them');
    });

    it('refuses a file that is missing, unreadable or empty, naming the setting and the path', () => {
      const dir = secretsDir();
      const missing = join(dir, 'missing');
      expect(failure({ NERKH_DATABASE_URL_FILE: missing })).toBe(
        `invalid configuration: NERKH_DATABASE_URL_FILE cannot be read: ENOENT: no such file or directory, open '${missing}'`,
      );
      expect(failure({ NERKH_FORM_SECRET_FILE: dir })).toMatch(
        /^invalid configuration: NERKH_FORM_SECRET_FILE cannot be read: EISDIR/,
      );
      const empty = join(dir, 'empty');
      writeFileSync(empty, '\n');
      expect(failure({ NERKH_FORM_SECRET_FILE: empty })).toBe(
        `invalid configuration: NERKH_FORM_SECRET_FILE=${empty} is empty`,
      );
    });

    it("validates a secret read from a file as the variable's value, without repeating it", () => {
      const dir = secretsDir();
      const path = join(dir, 'database_url');
      writeFileSync(path, 'mysql://nerkh:db-pass-1@db.internal/nerkh\n');
      const message = failure({ NERKH_DATABASE_URL_FILE: path });
      expect(message).toMatch(/^invalid configuration: NERKH_DATABASE_URL=\(value not shown\): /);
      expect(message).not.toContain('db-pass-1');
      expect(failure({ NERKH_FORM_SECRET: 'too-short-secret' })).not.toContain('too-short-secret');
    });

    it('leaves settings that are not secrets as they are: NERKH_SOURCES_FILE is a setting of its own', () => {
      expect(loadConfig({ NERKH_SOURCES_FILE: 'sources/iran.yaml' }).NERKH_SOURCES_FILE).toBe(
        'sources/iran.yaml',
      );
      expect(() => loadConfig({ PORT_FILE: '/nonexistent' })).not.toThrow();
    });
  });
});
