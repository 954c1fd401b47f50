import { connect } from 'node:net';
import fc from 'fast-check';
import { isMain, runDrillCommand } from './support/drill-cli.ts';
import type { Tally } from './support/load.ts';
import { NerkhProcess } from './support/nerkh-process.ts';
import {
  issueKeys,
  openDrillStore,
  type Say,
  simulatorEnv,
  startSimulator,
  type Teardown,
  tempDataDir,
  waitForRates,
} from './support/rig.ts';

/**
 * Fuzzing over real sockets: requests of every shape a client (or an attacker) can send — odd
 * methods, paths with dot segments and bad percent-encodings, repeated and malformed query
 * parameters, header values of every kind, bodies in unexpected encodings — written as raw bytes,
 * so nothing the client library would refuse to send is left out. nerkh must answer each with a
 * 2xx–4xx (never a 5xx), never die, and not grow without bound.
 */
export interface FuzzOptions {
  requests: number;
  concurrency: number;
  seed: number;
}

export interface FuzzResult {
  ok: boolean;
  /** Status of each answer; `closed` = the server closed without an answer (malformed bytes). */
  tally: Tally;
  /** Up to ten requests answered with a 5xx, as sent. */
  serverErrors: string[];
  rssStartKiB: number;
  rssPeakKiB: number;
  alive: boolean;
}

const paths = [
  '/v1/rates',
  '/v1/health',
  '/health',
  '/v1',
  '/v1/openapi.json',
  '/openapi.json',
  '/llms.txt',
  '/llms-full.txt',
  '/SKILL.md',
  '/.well-known/api-catalog',
  '/',
  '/docs',
  '/docs/errors',
  '/coins',
  '/coins/BTC',
  '/status',
  '/terms',
  '/contact',
  '/contact/received',
];

const token = fc.string({
  unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~!$'),
  minLength: 1,
  maxLength: 12,
});
/** Any byte a request line or header value can carry, CR and LF aside (those end the line). */
const anyByteText = fc.string({
  unit: fc
    .integer({ min: 0, max: 255 })
    .filter((code) => code !== 10 && code !== 13)
    .map((code) => String.fromCharCode(code)),
  maxLength: 40,
});
const percentJunk = fc.constantFrom(
  '%',
  '%2',
  '%zz',
  '%00',
  '%2e%2e',
  '%252e',
  '%c0%af',
  '%ff%fe',
  '%E2%82',
  '%F0%9F%98%80',
);
const segment = fc.oneof(
  token,
  percentJunk,
  fc.constantFrom('..', '.', '', '~', 'BTC', 'btc', 'USDT', ';x=1', '%2F'),
  fc.string({ maxLength: 8 }).map(encodeURIComponent),
);

const path = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...paths) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.constantFrom(...paths), fc.array(segment, { maxLength: 3 }))
      .map(([base, rest]) => [base, ...rest].join('/')),
  },
  {
    weight: 1,
    arbitrary: fc.array(segment, { minLength: 1, maxLength: 6 }).map((parts) => `/${parts.join('/')}`),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '*',
      'http://127.0.0.1/v1/rates',
      '//v1//rates',
      '/v1/rates/',
      '/V1/RATES',
      `/${'a'.repeat(5000)}`,
    ),
  },
);
const queryValue = fc.oneof(
  token,
  percentJunk,
  fc.constantFrom(
    '',
    'btc,eth',
    'BTC',
    'btc,btc,btc',
    ',,,',
    'usdt',
    'toman',
    'irt',
    '1e309',
    '-1',
    'null',
    '[]',
    '{}',
  ),
  fc.string({ maxLength: 20 }).map(encodeURIComponent),
);
const queryName = fc.oneof(
  fc.constantFrom(
    'symbol',
    'symbols',
    'currency',
    'symbol[]',
    'symbol[0]',
    '__proto__',
    'constructor',
    'key',
    'api_key',
    '',
  ),
  token,
);
const query = fc.oneof(
  fc.constant(''),
  fc.constant('?'),
  fc
    .tuple(
      fc.array(fc.tuple(queryName, fc.option(queryValue)), { minLength: 1, maxLength: 8 }),
      fc.constantFrom('&', ';', '&&'),
    )
    .map(
      ([pairs, separator]) =>
        `?${pairs.map(([name, value]) => (value === null ? name : `${name}=${value}`)).join(separator)}`,
    ),
  fc.constant(`?symbol=${'btc,'.repeat(3000)}`),
);
const method = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('GET', 'HEAD') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'POST',
      'PUT',
      'PATCH',
      'DELETE',
      'OPTIONS',
      'TRACE',
      'PROPFIND',
      'get',
      'CONNECT',
    ),
  },
  { weight: 1, arbitrary: token.map((name) => name.toUpperCase()) },
);
const headerValue = fc.oneof(queryValue, anyByteText, fc.constant(''), fc.constant('x'.repeat(9000)));
const header = fc.oneof(
  fc.tuple(
    fc.constant('Accept'),
    fc.oneof(
      fc.constantFrom(
        'application/json',
        'text/html',
        'text/markdown',
        '*/*',
        'application/json;q=0',
        'text/*;q=0.5, */*;q=0.1',
        'application/problem+json',
        'image/png',
      ),
      headerValue,
    ),
  ),
  fc.tuple(
    fc.constant('Accept-Encoding'),
    fc.oneof(
      fc.constantFrom(
        'gzip',
        'br',
        'zstd',
        'deflate',
        'identity;q=0',
        '*;q=0',
        'gzip;q=0.5, br;q=1.0',
        'gzip;q=abc',
        'compress, x-gzip',
      ),
      headerValue,
    ),
  ),
  fc.tuple(
    fc.constant('Accept-Language'),
    fc.oneof(fc.constantFrom('fa', 'en', 'fa-IR,fa;q=0.9', '*'), headerValue),
  ),
  fc.tuple(fc.constant('X-API-Key'), fc.oneof(fc.constant('VALID'), token, headerValue)),
  fc.tuple(
    fc.constant('Content-Type'),
    fc.oneof(
      fc.constantFrom(
        'application/json',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'text/plain',
        'application/json; charset=utf-16',
      ),
      headerValue,
    ),
  ),
  fc.tuple(fc.constant('Content-Encoding'), fc.constantFrom('gzip', 'br', 'deflate', 'identity', 'x')),
  fc.tuple(
    fc.constantFrom(
      'If-None-Match',
      'If-Modified-Since',
      'Range',
      'Origin',
      'Referer',
      'Cookie',
      'X-Forwarded-For',
      'X-Forwarded-Proto',
      'Forwarded',
      'Expect',
      'Upgrade',
      'Authorization',
      'Transfer-Encoding',
    ),
    headerValue,
  ),
  fc.tuple(token, headerValue),
);
const body = fc.oneof(
  { weight: 3, arbitrary: fc.constant('') },
  { weight: 1, arbitrary: fc.json({ maxDepth: 3 }) },
  {
    weight: 1,
    arbitrary: fc
      .array(
        fc.tuple(fc.constantFrom('name', 'email', 'org', 'purpose', 'token', 'website', '_csrf'), queryValue),
        { maxLength: 6 },
      )
      .map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join('&')),
  },
  { weight: 1, arbitrary: anyByteText },
);

/** One request, as bytes. Most are well-formed HTTP/1.1 with a Content-Length that matches. */
const rawRequest = (validKey: string) =>
  fc
    .record({
      method,
      path,
      query,
      headers: fc.array(header, { maxLength: 6 }),
      body,
      version: fc.constantFrom('HTTP/1.1', 'HTTP/1.1', 'HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/1.1 '),
    })
    .map(({ method, path, query, headers, body, version }) => {
      const lines = [`${method} ${path}${query} ${version}`, 'Host: 127.0.0.1'];
      for (const [name, value] of headers) lines.push(`${name}: ${value === 'VALID' ? validKey : value}`);
      const bytes = Buffer.from(body, 'latin1');
      if (bytes.length > 0 || method === 'POST') lines.push(`Content-Length: ${bytes.length}`);
      lines.push('Connection: close');
      return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), bytes]);
    });

/** Sends one request on its own connection; resolves to the status line's code, or `closed`. */
function send(port: number, request: Buffer): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let head = '';
    let settled = false;
    const finish = (outcome: string) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve(outcome);
    };
    socket.setTimeout(15_000, () => finish('timeout'));
    socket.on('data', (chunk) => {
      head += chunk.toString('latin1');
      const match = /^HTTP\/1\.[01] (\d{3})/.exec(head);
      if (match?.[1]) finish(match[1]);
      else if (head.length > 12) finish('garbled');
    });
    socket.on('error', () => finish('closed'));
    socket.on('close', () => finish('closed'));
    socket.write(request);
  });
}

export async function fuzzDrill(options: FuzzOptions, say: Say, teardown: Teardown): Promise<FuzzResult> {
  const sim = await startSimulator(teardown);
  const env = { ...simulatorEnv(sim), NERKH_DATA_DIR: tempDataDir(teardown, 'fuzz') };
  const [key = ''] = await issueKeys(await openDrillStore(teardown, env), 1);
  const nerkh = await NerkhProcess.start({ role: 'all', env });
  teardown(() => nerkh.stop());
  await waitForRates(nerkh.url, key);
  const port = Number(new URL(nerkh.url).port);
  const rssStartKiB = nerkh.rssKiB();
  let rssPeakKiB = rssStartKiB;
  say(
    `nerkh pid ${nerkh.pid}, RSS ${(rssStartKiB / 1024).toFixed(1)} MiB; ${options.requests} requests, seed ${options.seed}`,
  );

  const tally: Tally = {};
  const serverErrors: string[] = [];
  const generator = rawRequest(key);
  const batchSize = 1000;
  let sent = 0;
  const started = Date.now();
  for (let batch = 0; sent < options.requests && nerkh.alive; batch++) {
    const requests = fc.sample(generator, {
      seed: options.seed + batch,
      numRuns: Math.min(batchSize, options.requests - sent),
    });
    let next = 0;
    await Promise.all(
      Array.from({ length: options.concurrency }, async () => {
        while (next < requests.length) {
          const request = requests[next++] as Buffer;
          const outcome = await send(port, request);
          tally[outcome] = (tally[outcome] ?? 0) + 1;
          if (outcome.startsWith('5') && serverErrors.length < 10) {
            serverErrors.push(`${outcome} ← ${JSON.stringify(request.toString('latin1').slice(0, 300))}`);
          }
        }
      }),
    );
    sent += requests.length;
    if (nerkh.alive) rssPeakKiB = Math.max(rssPeakKiB, nerkh.rssKiB());
    if (sent % 10_000 === 0 || sent === options.requests) {
      const rate = Math.round(sent / ((Date.now() - started) / 1000));
      say(
        `${sent} sent (${rate}/s), RSS ${(rssPeakKiB / 1024).toFixed(1)} MiB peak; ${JSON.stringify(tally)}`,
      );
    }
  }
  const alive = nerkh.alive;
  const fiveHundreds = Object.entries(tally)
    .filter(([status]) => status.startsWith('5'))
    .reduce((sum, [, n]) => sum + n, 0);
  for (const line of serverErrors) say(`5xx: ${line}`);
  say(
    `${fiveHundreds} answers 5xx; process ${alive ? 'alive' : `DEAD: ${nerkh.stderr.slice(-2000)}`}; RSS ${(rssStartKiB / 1024).toFixed(1)} → peak ${(rssPeakKiB / 1024).toFixed(1)} MiB`,
  );
  // Bounded: the fuzzing must not double the footprint (a leak per request would, at this volume).
  const ok =
    fiveHundreds === 0 &&
    alive &&
    rssPeakKiB <= rssStartKiB * 2 &&
    (tally.timeout ?? 0) === 0 &&
    (tally.garbled ?? 0) === 0;
  return { ok, tally, serverErrors, rssStartKiB, rssPeakKiB, alive };
}

if (isMain(import.meta.url)) {
  await runDrillCommand<FuzzOptions>({
    name: 'fuzz',
    description:
      'Sends fuzzed requests (methods, paths, query shapes, headers, encodings, bodies), each as raw\nbytes on its own connection, to a running nerkh. Passes with no 5xx, no timeout, the process alive\nand its resident set not doubled.',
    options: {
      requests: { default: 100_000, help: 'requests to send' },
      concurrency: { default: 16, help: 'requests in flight at once' },
      seed: { default: 1, help: 'seed of the generators (a failure replays with the same seed)' },
    },
    run: fuzzDrill,
  });
}
