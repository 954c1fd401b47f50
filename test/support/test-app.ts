import { Writable } from 'node:stream';
import { type ApiDeps, wireApi } from '../../src/api-wiring.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import type { SnapshotDraft } from '../../src/domain/rates.ts';
import type { NerkhApp } from '../../src/http/types.ts';
import { issueApiKey } from '../../src/keys/issue-key.ts';
import { memoryLimiters } from '../../src/limiter/open-limiter.ts';
import { createLogger } from '../../src/logger.ts';
import type { CollectorStatus } from '../../src/store/collector-status.ts';
import { MemoryKeyRequestStore } from '../../src/store/memory/key-request-store.ts';
import { MemoryApiKeyStore } from '../../src/store/memory/key-store.ts';
import { MemorySnapshotStore } from '../../src/store/memory/snapshot-store.ts';

export const publicUrl = 'https://rates.example.test';

export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({ NERKH_PUBLIC_URL: publicUrl, LOG_LEVEL: 'silent', ...env });
}

/** A committed-snapshot draft shaped like the collector's: sorted by symbol, USDT row included. */
export function sampleSnapshot(updatedAt = '2025-01-01T12:00:00.000Z'): SnapshotDraft {
  const usdtIrt = 92_150;
  // Priced in tether by binance, sell_irt converted at nobitex's tether rate.
  const row = (symbol: string, nameFa: string, sellUsdt: number, change: number | null, asOf: string) => {
    const sellIrt = Math.round(sellUsdt * usdtIrt) || null;
    return {
      symbol,
      name_fa: nameFa,
      sell_usdt: sellUsdt,
      sell_irt: sellIrt,
      change_24h: change,
      as_of: asOf,
      url: `${publicUrl}/coins/${symbol}`,
      source: 'binance',
      tether_source: sellIrt === null ? null : 'nobitex',
    };
  };
  return {
    updated_at: updatedAt,
    source: 'binance+nobitex',
    usdt_irt: usdtIrt,
    rates: [
      row('BTC', 'بیت‌کوین', 97_250.5, 1.25, '2025-01-01T11:59:58.000Z'),
      row('ETH', 'اتریوم', 3_410.12, -0.8, '2025-01-01T11:58:00.000Z'),
      row('SHIB', 'شیبا', 0.00002, null, '2025-01-01T09:00:00.000Z'),
      {
        ...row('USDT', 'تتر', 1, null, '2025-01-01T11:59:30.000Z'),
        sell_irt: usdtIrt,
        source: 'nobitex',
        tether_source: null,
      },
    ],
  };
}

export function healthyCollector(nowMs: number): CollectorStatus {
  const at = new Date(nowMs - 2000).toISOString();
  return {
    reported_at: new Date(nowMs - 1000).toISOString(),
    refresh_seconds: 600,
    sources: [
      {
        source: 'binance',
        state: 'up',
        detail: 'streaming',
        last_message_at: at,
        rejected: 0,
        reconnects: 0,
      },
      { source: 'nobitex', state: 'up', detail: 'polling', last_message_at: at, rejected: 0, reconnects: 0 },
    ],
  };
}

/** A settable clock for tests; starts at the sample snapshot's commit time plus a minute. */
export class FakeClock {
  constructor(public nowMs = Date.parse('2025-01-01T12:01:00.000Z')) {}
  readonly now = (): number => this.nowMs;
  advance(ms: number): void {
    this.nowMs += ms;
  }
}

/** Collects log lines written through a capture stream. */
export class LogCapture extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  }
  get text(): string {
    return this.lines.join('\n');
  }
}

export interface TestApp {
  app: NerkhApp;
  key: string;
  keyId: string;
  keys: MemoryApiKeyStore;
  snapshots: MemorySnapshotStore;
  clock: FakeClock;
  config: Config;
  /** The second key, when the options asked for one (`secondKey`). */
  secondKey: string | undefined;
  /**
   * Issues another key in the same store. That changes the keys' version: within a second the app
   * polls it and drops its key caches, so the next request with any key is checked in the store.
   */
  issue(rateLimit?: number): Promise<{ key: string; id: string }>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  snapshot?: SnapshotDraft | null;
  collector?: CollectorStatus | null;
  logs?: LogCapture;
  deps?: Partial<ApiDeps>;
  /**
   * A second key, issued before the app starts, with this rate limit (or the default): unlike one
   * from `issue`, it leaves the app's key caches alone.
   */
  secondKey?: { rateLimit?: number };
}

/**
 * A fresh app on in-memory stores with one snapshot and one issued key; nothing shared between tests.
 * Wired by the service's own `wireApi`, as `nerkh serve` wires it.
 */
export async function buildTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const config = testConfig(options.env);
  const clock = new FakeClock();
  const keys = new MemoryApiKeyStore();
  const snapshots = new MemorySnapshotStore();
  if (options.snapshot !== null) await snapshots.commitSnapshot(options.snapshot ?? sampleSnapshot());
  if (options.collector !== null) {
    await snapshots.putCollectorStatus(options.collector ?? healthyCollector(clock.nowMs));
  }
  const issue = async (rateLimit?: number) => {
    const issued = await issueApiKey(keys, {
      org: 'Test Org',
      purpose: 'tests',
      rateLimit: rateLimit ?? null,
    });
    return { key: issued.key, id: issued.record.id };
  };
  const first = await issue();
  const second = options.secondKey === undefined ? undefined : await issue(options.secondKey.rateLimit);
  const logger = options.logs ? createLogger('info', options.logs) : createLogger('silent');
  const limiters = memoryLimiters(config);
  const app = await wireApi({
    config,
    logger,
    snapshots,
    collectorStatus: snapshots,
    keys,
    keyRequests: new MemoryKeyRequestStore(),
    limiters,
    clock: clock.now,
    ...options.deps,
  });
  // The limiters are the caller's (as in the service); here they live exactly as long as the app.
  app.addHook('onClose', () => limiters.close());
  return {
    app,
    key: first.key,
    keyId: first.id,
    secondKey: second?.key,
    keys,
    snapshots,
    clock,
    config,
    issue,
  };
}
