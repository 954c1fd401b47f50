import { readFileSync } from 'node:fs';
import { type Static, Type } from 'typebox';
import { Value } from 'typebox/value';
import { urlHost } from './net/url-host.ts';

/**
 * The one configuration schema of nerkh (docs/operations.md#configuration). Every setting comes from the environment;
 * the type is derived from the schema, and `loadConfig` validates at boot so a bad value fails
 * fast with a message naming the variable.
 */
const HttpUrl = Type.String({ pattern: '^https?://[^\\s]+$' });
const WsUrl = Type.String({ pattern: '^wss?://[^\\s]+$' });
const LogLevel = Type.Union(
  ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((level) => Type.Literal(level)),
);

export const ConfigSchema = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
  HOST: Type.String({ minLength: 1, default: '127.0.0.1' }),
  NERKH_PUBLIC_URL: Type.Optional(HttpUrl),
  NERKH_DATA_DIR: Type.String({ minLength: 1, default: './data' }),
  NERKH_DATABASE_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  /** Connections each process keeps open to PostgreSQL at most (with NERKH_DATABASE_URL). */
  NERKH_DATABASE_POOL_SIZE: Type.Integer({ minimum: 1, maximum: 1000, default: 10 }),
  NERKH_REDIS_URL: Type.Optional(Type.String({ pattern: '^rediss?://' })),
  /**
   * How long a limit decision waits for Redis before this instance decides alone (and, until Redis
   * answers a probe, goes on alone). A stalled Redis holds the requests in flight this long, once;
   * too short, and an overloaded machine's slow answers send the limits local for nothing.
   */
  NERKH_REDIS_TIMEOUT_MS: Type.Integer({ minimum: 10, maximum: 10_000, default: 250 }),
  /** How this process is named in the logs and in `/v1/health` (default `hostname:pid`). */
  NERKH_INSTANCE_ID: Type.Optional(Type.String({ pattern: '^[^\\s]{1,200}$' })),
  /**
   * How long the collector lease lasts without renewal (with NERKH_DATABASE_URL): after a leader
   * dies, a standby takes over within this and a third of it. It is renewed every third of it.
   */
  NERKH_COLLECTOR_LEASE_SECONDS: Type.Integer({ minimum: 3, maximum: 300, default: 15 }),
  NERKH_REFRESH_SECONDS: Type.Integer({ minimum: 1, maximum: 86_400, default: 600 }),
  NERKH_RATE_LIMIT: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 60 }),
  NERKH_RATE_WINDOW_SECONDS: Type.Integer({ minimum: 1, maximum: 86_400, default: 60 }),
  /**
   * The sources file (YAML): which exchanges to take prices from and, per coin, in what order
   * (docs/sources.md). Unset: Binance for coins in tether and Nobitex for tether in toman, from the
   * four variables below, which a file replaces.
   */
  NERKH_SOURCES_FILE: Type.Optional(Type.String({ minLength: 1 })),
  NERKH_BINANCE_WS_URL: Type.String({ ...WsUrl, default: 'wss://stream.binance.com:9443' }),
  NERKH_BINANCE_REST_URL: Type.String({ ...HttpUrl, default: 'https://api.binance.com' }),
  NERKH_NOBITEX_URL: Type.String({ ...HttpUrl, default: 'https://apiv2.nobitex.ir' }),
  NERKH_NOBITEX_POLL_SECONDS: Type.Number({ minimum: 3, maximum: 3600, default: 10 }),
  NERKH_CATALOG: Type.Optional(Type.String({ minLength: 1 })),
  NERKH_COIN_URL_TEMPLATE: Type.Optional(Type.String({ pattern: '\\{symbol\\}' })),
  /** `source` of the rates response; unset, it names the sources that priced the snapshot (`binance+nobitex`). */
  NERKH_SOURCE_LABEL: Type.Optional(Type.String({ minLength: 1 })),
  NERKH_DISCLAIMER: Type.String({
    minLength: 1,
    default:
      'Rates are informational only. The final rate of an order is fixed when the order is placed in the user panel.',
  }),
  NERKH_MARKUP_PCT: Type.Number({ minimum: -50, maximum: 100, default: 0 }),
  /** Key of the contact form's CSRF tokens; set the same value on every instance (random per process if unset). */
  NERKH_FORM_SECRET: Type.Optional(Type.String({ minLength: 32 })),
  /**
   * Where each new key request is POSTed as JSON (never the requester's email), with retries
   * (docs/operations.md#key-requests). May hold a secret token, so it is never logged whole.
   */
  NERKH_REQUESTS_WEBHOOK_URL: Type.Optional(HttpUrl),
  NERKH_MARKUP_OVERRIDES: Type.String({ default: '' }),
  NERKH_MAX_JUMP_PCT: Type.Number({ exclusiveMinimum: 0, default: 50 }),
  /**
   * Snapshots kept; the price charts draw up to 7 days of them. The default keeps 8⅓ days at the
   * default 10-minute refresh, leaving room for the extra commit each restart makes.
   */
  NERKH_SNAPSHOT_RETENTION: Type.Integer({ minimum: 1, default: 1200 }),
  /**
   * Proxies whose X-Forwarded-For is believed when finding the client address (used to pause key
   * guessing per client): empty = none (the socket peer is the client); a number = that many hops;
   * else comma-separated addresses or CIDRs of the proxies, e.g. `127.0.0.1,10.0.0.0/8`.
   */
  NERKH_TRUST_PROXY: Type.String({ pattern: '^[0-9A-Fa-f.:/, ]*$', default: '' }),
  /**
   * Valid keys each API process remembers (the bounded cache of docs/architecture.md#keys): a key beyond it
   * costs a store read when it comes back. Set it above the number of keys in use at once.
   */
  NERKH_KEY_CACHE_SIZE: Type.Integer({ minimum: 1, maximum: 10_000_000, default: 20_000 }),
  /**
   * How long a client may take to send a request's headers (slow-header attacks, "slowloris"):
   * past it the connection is closed with 408. At most NERKH_REQUEST_TIMEOUT_MS.
   */
  NERKH_HEADERS_TIMEOUT_MS: Type.Integer({ minimum: 1000, maximum: 600_000, default: 10_000 }),
  /** How long a client may take to send a whole request, body included (slow-body attacks). */
  NERKH_REQUEST_TIMEOUT_MS: Type.Integer({ minimum: 1000, maximum: 600_000, default: 30_000 }),
  /**
   * How long an idle keep-alive connection stays open between requests. Fastify's 72 s default:
   * longer than the 60 s idle timeout of common load balancers, so the balancer closes first and
   * never sends a request on a connection nerkh is closing.
   */
  NERKH_KEEP_ALIVE_TIMEOUT_MS: Type.Integer({ minimum: 1000, maximum: 600_000, default: 72_000 }),
  /**
   * How long a stopping API keeps serving after SIGTERM with `/readyz` answering 503, before it
   * closes its port (docs/operations.md#shutdown): long enough for a balancer to stop sending it
   * requests (HAProxy checking every 2 s, `fall 2`: within about 6 s; Kubernetes takes a deleted
   * pod out of its Service in a few seconds), short enough that it and the 15 s bound on the rest
   * of the shutdown fit in Kubernetes' default 30 s grace period. 0 = close at once.
   */
  NERKH_DRAIN_SECONDS: Type.Integer({ minimum: 0, maximum: 600, default: 10 }),
  /**
   * Open connections the process accepts at most; beyond it new ones are closed at once. It keeps
   * a flood of connections from using up the process's file descriptors (keep it below `ulimit -n`).
   */
  NERKH_MAX_CONNECTIONS: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 10_000 }),
  /**
   * Requests one connection may carry before nerkh closes it (0 = no limit): set it behind a
   * layer-4 balancer so long-lived clients reconnect and spread over the instances again.
   */
  NERKH_MAX_REQUESTS_PER_SOCKET: Type.Integer({ minimum: 0, maximum: 1_000_000_000, default: 0 }),
  LOG_LEVEL: Type.String({ ...LogLevel, default: 'info' }),
  /**
   * Port of the Prometheus metrics listener (`GET /metrics`, docs/operations.md#metrics); unset = no metrics
   * listener. Never the public PORT: the figures are for the operator, not for API clients.
   */
  NERKH_METRICS_PORT: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535 })),
  /** Address the metrics listener binds to; loopback by default, so only this machine can scrape it. */
  NERKH_METRICS_HOST: Type.String({ minLength: 1, default: '127.0.0.1' }),
});

export type RawConfig = Static<typeof ConfigSchema>;

export interface Config extends RawConfig {
  /** Origin the service is reached at, without a trailing slash. */
  publicUrl: string;
  /** Per-symbol markup overrides in percent, from `NERKH_MARKUP_OVERRIDES` (`BTC=0.5,ETH=1`). */
  markupOverrides: ReadonlyMap<string, number>;
  coinUrlTemplate: string;
  /**
   * Fastify's `trustProxy`, from `NERKH_TRUST_PROXY`: off, the proxies' addresses, or for a hop
   * count proxy-addr's trust function (it receives each address and its hop index).
   */
  trustProxy: false | string[] | ((address: string, hop: number) => boolean);
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const numericKeys = new Set(
  Object.entries(ConfigSchema.properties)
    .filter(([, schema]) => 'type' in schema && (schema.type === 'integer' || schema.type === 'number'))
    .map(([key]) => key),
);

/** The built-in sources' settings, which a sources file replaces. */
const builtInSourceKeys = [
  'NERKH_BINANCE_WS_URL',
  'NERKH_BINANCE_REST_URL',
  'NERKH_NOBITEX_URL',
  'NERKH_NOBITEX_POLL_SECONDS',
] as const;

function parseOverrides(text: string): Map<string, number> {
  const overrides = new Map<string, number>();
  for (const part of text.split(',').map((p) => p.trim())) {
    if (part === '') continue;
    const match = /^([A-Za-z0-9]{1,20})=(-?\d+(?:\.\d+)?)$/.exec(part);
    if (!match?.[1] || match[2] === undefined) {
      throw new ConfigError(`NERKH_MARKUP_OVERRIDES: "${part}" is not SYMBOL=PERCENT (e.g. BTC=0.5)`);
    }
    overrides.set(match[1].toUpperCase(), Number(match[2]));
  }
  return overrides;
}

/**
 * Behind a load balancer the socket peer is the balancer, so without this every client would share
 * one address and one client's guessing would pause key checks for all.
 */
function parseTrustProxy(setting: string): Config['trustProxy'] {
  const value = setting.trim();
  if (value === '') return false;
  if (/^\d+$/.test(value)) {
    // A hop count: trust the nearest N addresses.
    const hops = Number(value);
    return (_address, hop) => hop < hops;
  }
  return value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
}

/**
 * The settings that hold a secret (a password in a URL, a signing key, a webhook's token). Each may
 * be given as `NAME_FILE`, the path of a file holding it (the postgres image's convention: compose
 * and Kubernetes mount secrets as files, which stay out of `docker inspect` and the process's
 * environment), and no error message repeats its value.
 */
const secretKeys = new Set([
  'NERKH_DATABASE_URL',
  'NERKH_REDIS_URL',
  'NERKH_FORM_SECRET',
  'NERKH_REQUESTS_WEBHOOK_URL',
]);

/** `env` with each secret given as `NAME_FILE` read into `NAME`; refuses both set, or a file unread. */
function withSecretFiles(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const resolved = { ...env };
  for (const key of secretKeys) {
    const path = env[`${key}_FILE`];
    if (path === undefined || path === '') continue;
    if (env[key] !== undefined && env[key] !== '') {
      throw new ConfigError(`invalid configuration: ${key} and ${key}_FILE are both set; set one of them`);
    }
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      // Node's message names the cause and the path: "ENOENT: no such file or directory, open '…'".
      throw new ConfigError(`invalid configuration: ${key}_FILE cannot be read: ${(error as Error).message}`);
    }
    // Written with `echo` or an editor, the file ends in a newline that is no part of the secret.
    const value = text.replace(/\r?\n+$/, '');
    if (value === '') throw new ConfigError(`invalid configuration: ${key}_FILE=${path} is empty`);
    resolved[key] = value;
  }
  return resolved;
}

/** Reads, converts and validates the configuration; throws ConfigError naming each bad variable. */
export function loadConfig(givenEnv: NodeJS.ProcessEnv = process.env): Config {
  const env = withSecretFiles(givenEnv);
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(ConfigSchema.properties)) {
    const value = env[key];
    if (value === undefined || value === '') continue;
    raw[key] = numericKeys.has(key) && /^-?\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : value;
  }
  const withDefaults = Value.Default(ConfigSchema, raw);
  const errors = Value.Errors(ConfigSchema, withDefaults);
  if (errors.length > 0) {
    const lines = errors.map((error) => {
      const key = error.instancePath.replace(/^\//, '') || '(root)';
      // A secret (a URL's password, a webhook's token): the message names the setting, never its value.
      const shown = secretKeys.has(key) ? '(value not shown)' : JSON.stringify(raw[key] ?? env[key]);
      return `${key}=${shown}: ${error.message}`;
    });
    throw new ConfigError(`invalid configuration: ${lines.join('; ')}`);
  }
  const config = withDefaults as RawConfig;
  const replacedByFile = builtInSourceKeys.filter((key) => env[key] !== undefined && env[key] !== '');
  if (config.NERKH_SOURCES_FILE !== undefined && replacedByFile.length > 0) {
    throw new ConfigError(
      `invalid configuration: ${replacedByFile.join(', ')} ${replacedByFile.length === 1 ? 'has' : 'have'} no effect with NERKH_SOURCES_FILE; set the sources' url and poll_seconds in the file instead`,
    );
  }
  if (
    config.NERKH_METRICS_PORT !== undefined &&
    config.NERKH_METRICS_PORT !== 0 &&
    config.NERKH_METRICS_PORT === config.PORT
  ) {
    throw new ConfigError(
      `invalid configuration: NERKH_METRICS_PORT=${config.NERKH_METRICS_PORT} is the public PORT; metrics get a port of their own`,
    );
  }
  if (
    config.NERKH_METRICS_PORT === undefined &&
    env.NERKH_METRICS_HOST !== undefined &&
    env.NERKH_METRICS_HOST !== ''
  ) {
    throw new ConfigError(
      'invalid configuration: NERKH_METRICS_HOST has no effect without NERKH_METRICS_PORT',
    );
  }
  if (config.NERKH_HEADERS_TIMEOUT_MS > config.NERKH_REQUEST_TIMEOUT_MS) {
    // Node refuses a headers timeout longer than the request timeout the headers are part of.
    throw new ConfigError(
      `invalid configuration: NERKH_HEADERS_TIMEOUT_MS=${config.NERKH_HEADERS_TIMEOUT_MS} is longer than NERKH_REQUEST_TIMEOUT_MS=${config.NERKH_REQUEST_TIMEOUT_MS}; the headers are part of the request`,
    );
  }
  if (config.NERKH_REQUESTS_WEBHOOK_URL !== undefined && !URL.canParse(config.NERKH_REQUESTS_WEBHOOK_URL)) {
    throw new ConfigError(
      'invalid configuration: NERKH_REQUESTS_WEBHOOK_URL is not a valid URL (value not shown)',
    );
  }
  const publicUrl = (config.NERKH_PUBLIC_URL ?? `http://${hostForUrl(config.HOST)}:${config.PORT}`).replace(
    /\/+$/,
    '',
  );
  return {
    ...config,
    publicUrl,
    markupOverrides: parseOverrides(config.NERKH_MARKUP_OVERRIDES),
    coinUrlTemplate: config.NERKH_COIN_URL_TEMPLATE ?? `${publicUrl}/coins/{symbol}`,
    trustProxy: parseTrustProxy(config.NERKH_TRUST_PROXY),
  };
}

function hostForUrl(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return urlHost(host);
}
