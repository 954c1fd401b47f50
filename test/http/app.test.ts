import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { appStoresOf, wireApi } from '../../src/api-wiring.ts';
import { listen } from '../../src/http/server.ts';
import { issueApiKey } from '../../src/keys/issue-key.ts';
import { memoryLimiters } from '../../src/limiter/open-limiter.ts';
import { createLogger } from '../../src/logger.ts';
import { MemoryKeyRequestStore } from '../../src/store/memory/key-request-store.ts';
import { MemoryApiKeyStore } from '../../src/store/memory/key-store.ts';
import { MemorySnapshotStore } from '../../src/store/memory/snapshot-store.ts';
import { openPostgresStore } from '../../src/store/postgres/open-postgres-store.ts';
import { createTestDatabase, skipPostgres } from '../support/postgres.ts';
import { parseRawResponse, rawExchange } from '../support/raw-http.ts';
import {
  buildTestApp,
  healthyCollector,
  sampleSnapshot,
  type TestApp,
  testConfig,
} from '../support/test-app.ts';
import { waitFor } from '../support/wait.ts';

let t: TestApp;
let port: number;
beforeAll(async () => {
  // A fresh snapshot on the real clock, so the final health check can expect a pass.
  t = await buildTestApp({
    deps: { clock: Date.now },
    snapshot: sampleSnapshot(new Date().toISOString()),
    collector: healthyCollector(Date.now()),
  });
  port = Number(new URL(await listen(t.app, '127.0.0.1', 0)).port);
});
afterAll(async () => {
  await t.app.close();
});

// Weighted towards requests that reach the routes, so auth, limits and validation get fuzzed too.
const method = fc.oneof(
  { arbitrary: fc.constant('GET'), weight: 4 },
  fc.constantFrom(
    'HEAD',
    'POST',
    'PUT',
    'DELETE',
    'PATCH',
    'OPTIONS',
    'TRACE',
    'PROPFIND',
    'PURGE',
    'M-SEARCH',
  ),
  fc.stringMatching(/^[A-Z]{1,10}$/),
);
const segment = fc.oneof(
  fc.constantFrom(
    'v1',
    'rates',
    'health',
    'openapi.json',
    '..',
    '.',
    '',
    '%2e%2e',
    '%ZZ',
    '%',
    '%00',
    'v1%2Frates',
  ),
  fc.stringMatching(/^[A-Za-z0-9._~-]{0,12}$/),
  fc.string({ unit: 'binary', maxLength: 6 }).map((s) => encodeURIComponent(s)),
);
const path = fc.oneof(
  { arbitrary: fc.constantFrom('/v1/rates', '/v1/health', '/health', '/v1/rates/'), weight: 3 },
  fc.array(segment, { maxLength: 5 }).map((segments) => `/${segments.join('/')}`),
);
const queryValue = fc.oneof(
  fc.constantFrom('BTC', 'btc', '', '%ZZ', '%', 'A'.repeat(25), 'nerkh_x', '%F0%9F%92%A9', 'a&b'),
  fc.stringMatching(/^[A-Za-z0-9%+=&-]{0,20}$/),
);
const query = fc.option(
  fc
    .array(fc.tuple(fc.constantFrom('symbol', 'key', 'api_key', 'x', 'symbol[]', '__proto__'), queryValue), {
      maxLength: 4,
    })
    .map((pairs) => `?${pairs.map(([name, value]) => `${name}=${value}`).join('&')}`),
  { nil: '' },
);
/** Header values, including bytes Node's parser refuses and sizes beyond its 16 KiB limit. */
const headerValue = fc.oneof(
  { arbitrary: fc.stringMatching(/^[ -~]{0,40}$/), weight: 3 },
  fc.stringMatching(/^[ -~]{0,40}$/),
  fc.constantFrom(
    '\u0000',
    '\u007f',
    'é',
    'W/"x", *',
    'gzip;q=abc, br;q=2',
    'nerkh_AAAAAAAAAAAAAAAAAAAAAA_AAAAAA',
  ),
  fc.integer({ min: 1000, max: 20_000 }).map((size) => 'h'.repeat(size)),
);
const header = fc.tuple(
  fc.oneof(
    fc.constantFrom(
      'X-API-Key',
      'Accept-Encoding',
      'If-None-Match',
      'If-Modified-Since',
      'Accept',
      'Content-Type',
      'Expect',
    ),
    fc.stringMatching(/^[A-Za-z-]{1,12}$/),
  ),
  headerValue,
);

describe('fuzzing methods, paths, queries and headers over a socket', () => {
  it('never answers 5xx, answers every error as a problem document, and stays up', async () => {
    await fc.assert(
      fc.asyncProperty(
        method,
        path,
        query,
        fc.array(header, { maxLength: 5 }),
        fc.boolean(),
        async (verb, target, search, headers, withValidKey) => {
          const lines = [`${verb} ${target}${search} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close'];
          if (withValidKey) lines.push(`X-API-Key: ${t.key}`);
          for (const [name, value] of headers) lines.push(`${name}: ${value}`);
          const raw = await rawExchange(port, Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'));
          expect(raw.length).toBeGreaterThan(0);
          const response = parseRawResponse(raw);
          expect(response.status).toBeGreaterThanOrEqual(200);
          expect(response.status).toBeLessThan(500);
          if (response.status >= 400) {
            expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
            if (verb !== 'HEAD') {
              const body = JSON.parse(response.body);
              expect(body.status).toBe(response.status);
              expect(body.type).toMatch(/\/docs\/errors#[a-z-]+$/);
              expect(typeof body.code).toBe('string');
            }
          }
        },
      ),
      { numRuns: 300 },
    );
    const health = await fetch(`http://127.0.0.1:${port}/v1/health`);
    expect(health.status).toBe(200);
  });
});

describe.skipIf(skipPostgres)('with a change feed (PostgreSQL)', () => {
  it('serves a snapshot and refuses a revoked key as soon as another instance commits them, without waiting for a poll', async () => {
    const url = await createTestDatabase();
    const settings = { NERKH_DATABASE_URL: url, NERKH_DATABASE_POOL_SIZE: 2, NERKH_SNAPSHOT_RETENTION: 10 };
    const writer = await openPostgresStore(settings);
    onTestFinished(() => writer.close());
    const reader = await openPostgresStore(settings);
    onTestFinished(() => reader.close());
    const changes = await reader.openChangeFeed?.(createLogger('silent'));
    if (changes === undefined) throw new Error('the PostgreSQL store opens a change feed');
    onTestFinished(() => changes.close());
    await writer.snapshots.commitSnapshot(sampleSnapshot(new Date().toISOString()));
    const { key, record } = await issueApiKey(writer.keys, { org: 'A', purpose: 'p' });
    // Polls a minute apart: only the feed can bring the changes below in time.
    const api = await buildTestApp({
      deps: { ...appStoresOf(reader), changes, pollMs: 60_000, clock: Date.now },
    });
    onTestFinished(() => api.app.close());
    const rates = () => api.app.inject({ url: '/v1/rates', headers: { 'x-api-key': key } });
    expect((await rates()).json().usdt_irt).toBe(92_150);

    await writer.snapshots.commitSnapshot({ ...sampleSnapshot(new Date().toISOString()), usdt_irt: 93_000 });
    await waitFor(async () => (await rates()).json().usdt_irt === 93_000, 1000, 'the new snapshot');

    await writer.keys.revokeApiKey(record.id);
    await waitFor(async () => (await rates()).statusCode === 403, 1000, 'the revocation');
  });
});

describe('a start that fails', () => {
  it('leaves nothing polling the stores it was given', async () => {
    class CountingSnapshots extends MemorySnapshotStore {
      polls = 0;
      override async latestSnapshotId() {
        this.polls++;
        return super.latestSnapshotId();
      }
    }
    class UnreachableKeys extends MemoryApiKeyStore {
      override apiKeysVersion(): Promise<number> {
        return Promise.reject(new Error('key store unreachable'));
      }
    }
    const snapshots = new CountingSnapshots();
    await snapshots.commitSnapshot(sampleSnapshot());
    const config = testConfig();
    const limiters = memoryLimiters(config);
    onTestFinished(() => limiters.close());
    await expect(
      wireApi({
        config,
        logger: createLogger('silent'),
        snapshots,
        collectorStatus: snapshots,
        keys: new UnreachableKeys(),
        keyRequests: new MemoryKeyRequestStore(),
        limiters,
        pollMs: 20,
      }),
    ).rejects.toThrow('key store unreachable');
    const pollsAtFailure = snapshots.polls;
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(snapshots.polls).toBe(pollsAtFailure);
  });
});
