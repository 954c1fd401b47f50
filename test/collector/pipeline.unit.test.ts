import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/catalog/catalog-file.ts';
import { type Pipeline, startPipeline } from '../../src/collector/pipeline.ts';
import { loadConfig } from '../../src/config.ts';
import type { RateRow, Snapshot } from '../../src/domain/rates.ts';
import type { SourceName } from '../../src/feeds/types.ts';
import { createLogger } from '../../src/logger.ts';
import { projectRoot } from '../../src/project-root.ts';
import { startService } from '../../src/service.ts';
import { ExchangeSimulator } from '../../src/simulator/exchange-simulator.ts';
import { builtInSources } from '../../src/sources/default-sources.ts';
import { parseSources } from '../../src/sources/load-sources.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { OpenedStore } from '../../src/store/types.ts';
import { againstSimulator } from '../support/simulated-sources.ts';
import { startSourcesPipeline } from '../support/sources-pipeline.ts';

/** End to end over real sockets: simulator → Binance/Nobitex adapters → collector → SQLite. */

const symbols = new Set(['USDT', 'BTC', 'ETH', 'DOGE', 'SHIB', 'TON', 'SOL']);
const catalog = loadCatalog().filter((entry) => symbols.has(entry.symbol));

interface LogLine {
  msg: string;
  from?: string;
  to?: string;
  source?: SourceName;
  state?: string;
  id?: number;
  count?: number;
  usdt_irt?: number | null;
  duration_ms?: number;
}

interface Rig {
  sim: ExchangeSimulator;
  pipeline: Pipeline;
  store: OpenedStore;
  logs: LogLine[];
  startedAt: number;
  dataDir: string;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startRig(
  options: {
    usdtRialStart?: number;
    dataDir?: string;
    sim?: ExchangeSimulator;
    /** How long the first commit waits for every source (default 600 ms). */
    firstCommitGraceMs?: number;
  } = {},
) {
  const sim =
    options.sim ??
    (await ExchangeSimulator.start({
      catalog,
      seed: 7,
      autoTick: false,
      pingIntervalMs: 100,
      retryAfterSeconds: 0,
      usdtRialStart: options.usdtRialStart ?? 1_052_990,
    }));
  if (!options.sim) cleanups.push(() => sim.stop());
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'nerkh-pipeline-'));
  if (!options.dataDir) cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
  const config = loadConfig({
    NERKH_DATA_DIR: dataDir,
    NERKH_PUBLIC_URL: 'https://rates.example',
    NERKH_BINANCE_WS_URL: sim.wsBaseUrl,
    NERKH_BINANCE_REST_URL: sim.restBaseUrl,
    NERKH_NOBITEX_URL: sim.nobitexBaseUrl,
  });
  const store = await openStore(config);
  cleanups.push(() => store.close());
  const logs: LogLine[] = [];
  const logger = createLogger('debug', { write: (line: string) => logs.push(JSON.parse(line) as LogLine) });
  const startedAt = Date.now();
  const pipeline = await startPipeline({
    config,
    catalog,
    sources: builtInSources(config),
    store: store.snapshots,
    logger,
    tuning: {
      refreshMs: 150,
      statusIntervalMs: 100,
      firstCommitGraceMs: options.firstCommitGraceMs ?? 600,
      sourceStaleMs: 2000,
      pollMs: 40,
      minPollMs: 40,
      pollTimeoutMs: 250,
      pollBackoffMaxMs: 150,
      binanceStallMs: 400,
      backoffBaseMs: 20,
      backoffMaxMs: 150,
    },
  });
  cleanups.push(() => pipeline.stop());
  return { sim, pipeline, store, logs, startedAt, dataDir } satisfies Rig;
}

async function waitFor<T>(
  probe: () => T | Promise<T>,
  what: string,
  timeoutMs = 5000,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const rowOf = (snapshot: { rates: RateRow[] } | null, symbol: string) =>
  snapshot?.rates.find((row) => row.symbol === symbol);

/** The first snapshot with every catalog coin and tether priced. */
async function firstFullSnapshot(rig: Rig): Promise<Snapshot> {
  return waitFor(async () => {
    const snapshot = await rig.store.snapshots.latestSnapshot();
    return snapshot?.rates.length === catalog.length ? snapshot : null;
  }, 'a snapshot with every coin');
}

/** A tick that moves the ask by `pct` percent, as an 8-decimal wire string. */
function movedAsk(sim: ExchangeSimulator, pair: string, pct: number): string {
  return (Number(sim.askOf(pair)) * (1 + pct / 100)).toFixed(8);
}

function expectPricedLikeTheSimulator(snapshot: Snapshot, sim: ExchangeSimulator): void {
  const usdtIrt = Number(sim.usdtBestSellRial()) / 10;
  expect(snapshot.usdt_irt).toBe(usdtIrt);
  expect(snapshot.rates).toHaveLength(catalog.length);
  for (const entry of catalog) {
    const row = rowOf(snapshot, entry.symbol);
    expect(row, entry.symbol).toBeDefined();
    if (!row) continue;
    expect(row.name_fa).toBe(entry.name_fa);
    expect(row.url).toBe(`https://rates.example/coins/${entry.symbol}`);
    if (entry.pair === null) {
      expect(row).toMatchObject({ sell_usdt: 1, sell_irt: usdtIrt, change_24h: null });
      continue;
    }
    expect(row.sell_usdt, entry.symbol).toBe(Number(sim.askOf(entry.pair)));
    const toman = Math.round(row.sell_usdt * usdtIrt);
    expect(row.sell_irt, entry.symbol).toBe(toman > 0 ? toman : null);
  }
}

describe('pipeline against the exchange simulator', () => {
  it('publishes the exchange asks in USDT and tether in toman, first snapshot as soon as data is in', async () => {
    // A grace far longer than the sources take to answer: a first commit before it ends was made
    // because every source was in, however slow the machine (at 600 ms, a loaded machine's
    // sources answered after the grace, and the test could not tell the two apart).
    const rig = await startRig({ firstCommitGraceMs: 30_000 });
    const snapshot = await firstFullSnapshot(rig);
    expect(Date.parse(snapshot.updated_at) - rig.startedAt).toBeLessThan(30_000);
    expect(rig.sim.usdtBestSellRial()).toMatch(/^\d{7}$/);
    expect(snapshot.usdt_irt).toBe(105_299);
    expectPricedLikeTheSimulator(snapshot, rig.sim);
    expect(snapshot.rates.map((row) => row.symbol)).toEqual([...symbols].sort());
    expect(rig.logs).toContainEqual(
      expect.objectContaining({
        msg: 'snapshot committed',
        id: snapshot.id,
        count: catalog.length,
        usdt_irt: 105_299,
      }),
    );
  });

  it('converts an 8-digit rial tether rate to toman', async () => {
    const rig = await startRig({ usdtRialStart: 9_999_990 });
    expect((await firstFullSnapshot(rig)).usdt_irt).toBe(999_999);
    rig.sim.setUsdtBestSellRial('10000010');
    await waitFor(
      () => rig.pipeline.collector.buildSnapshotDraft().usdt_irt === 1_000_001,
      'the new tether rate',
    );
    const snapshot = await rig.pipeline.collector.commitNow();
    expect(snapshot).not.toBeNull();
    if (snapshot) expectPricedLikeTheSimulator(snapshot, rig.sim);
  });

  it('keeps as_of on an unchanged tick, advances it on a moving one, and gives each row its own', async () => {
    const rig = await startRig();
    const { sim, pipeline } = rig;
    const first = await firstFullSnapshot(rig);
    const btcAsOf = rowOf(first, 'BTC')?.as_of;

    await pause(5);
    sim.tick('BTCUSDT');
    const ethAsk = movedAsk(sim, 'ETHUSDT', 0.2);
    const ethTime = sim.tick('ETHUSDT', ethAsk);
    // ETH follows BTC on the same connection: once ETH has moved, BTC's unchanged tick is in.
    await waitFor(
      () => rowOf(pipeline.collector.buildSnapshotDraft(), 'ETH')?.sell_usdt === Number(ethAsk),
      'the ETH tick',
    );
    let draft = pipeline.collector.buildSnapshotDraft();
    expect(rowOf(draft, 'BTC')?.as_of).toBe(btcAsOf);
    expect(rowOf(draft, 'ETH')?.as_of).toBe(new Date(ethTime).toISOString());

    await pause(5);
    const btcAsk = movedAsk(sim, 'BTCUSDT', -0.1);
    const btcTime = sim.tick('BTCUSDT', btcAsk);
    await waitFor(
      () => rowOf(pipeline.collector.buildSnapshotDraft(), 'BTC')?.sell_usdt === Number(btcAsk),
      'the BTC tick',
    );
    const snapshot = await pipeline.collector.commitNow();
    draft = snapshot ?? draft;
    expect(rowOf(draft, 'BTC')?.as_of).toBe(new Date(btcTime).toISOString());
    expect(rowOf(draft, 'ETH')?.as_of).toBe(new Date(ethTime).toISOString());
    expect(btcTime).toBeGreaterThan(ethTime);
    expect(Date.parse(draft.updated_at)).toBeGreaterThanOrEqual(btcTime);
    expect(await rig.store.snapshots.latestSnapshot()).toMatchObject({
      id: snapshot?.id,
      rates: draft.rates,
    });
  });

  // The unit mistakes (absurd ×1000, times-ten, tenth) are held, not refused: see the next suite.
  const priceFaults = ['malformed', 'negative', 'nan'] as const;
  const connectionFaults = ['drop', 'stall', 'http-429', 'http-5xx'] as const;

  it.each([...priceFaults, ...connectionFaults])(
    'stays up through the "%s" fault: keeps serving the last good snapshot, then recovers',
    async (fault) => {
      const rig = await startRig();
      const { sim, pipeline, logs } = rig;
      const collector = pipeline.collector;
      const good = await firstFullSnapshot(rig);
      const goodRates = good.rates;
      const logMark = logs.length;
      const rejectedBefore = (source: SourceName) =>
        collector.status().sources.find((s) => s.source === source)?.rejected ?? 0;
      const rejectedAtStart = { binance: rejectedBefore('binance'), nobitex: rejectedBefore('nobitex') };

      sim.setFault(fault, 'all');
      const isPriceFault = (priceFaults as readonly string[]).includes(fault);
      if (isPriceFault) {
        // Bad values arrive and are refused, counted per source.
        await waitFor(() => {
          sim.tick('BTCUSDT', movedAsk(sim, 'BTCUSDT', 0.5));
          const status = collector.status().sources;
          return status.every((s) => s.rejected > rejectedAtStart[s.source as keyof typeof rejectedAtStart]);
        }, `rejections from both sources under "${fault}"`);
        const counts = collector.rejectedCounts();
        expect(Object.keys(counts.binance ?? {}).length).toBeGreaterThan(0);
        expect(Object.keys(counts.nobitex ?? {}).length).toBeGreaterThan(0);
      } else {
        // Both sources notice the outage and back off.
        await waitFor(
          () =>
            logs
              .slice(logMark)
              .some((l) => l.source === 'binance' && (l.state === 'backoff' || l.state === 'stalled')) &&
            logs.slice(logMark).some((l) => l.source === 'nobitex' && l.state === 'backoff'),
          `both sources to back off under "${fault}"`,
        );
        sim.tick('BTCUSDT', movedAsk(sim, 'BTCUSDT', 0.5));
      }

      // Scheduled commits go on, and keep the last good prices (their as_of tells their age).
      const idDuringFault = await rig.store.snapshots.latestSnapshotId();
      const served = await waitFor(async () => {
        const latest = await rig.store.snapshots.latestSnapshot();
        return latest && latest.id > idDuringFault ? latest : null;
      }, 'a scheduled commit during the fault');
      expect(served.usdt_irt).toBe(good.usdt_irt);
      expect(served.rates).toEqual(goodRates);
      expect(Date.parse(served.updated_at)).toBeGreaterThan(Date.parse(good.updated_at));

      sim.setFault('none', 'all');
      const recovered = await waitFor(
        () => {
          sim.tick('BTCUSDT');
          const row = rowOf(collector.buildSnapshotDraft(), 'BTC');
          return (
            row?.sell_usdt === Number(sim.askOf('BTCUSDT')) && row.sell_usdt !== rowOf(good, 'BTC')?.sell_usdt
          );
        },
        `recovery after "${fault}"`,
        8000,
      );
      expect(recovered).toBe(true);
      await waitFor(
        () => collector.status().sources.every((s) => s.state === 'up'),
        `both sources up after "${fault}"`,
      );
      const after = await collector.commitNow();
      expect(after).not.toBeNull();
      if (after) expectPricedLikeTheSimulator(after, sim);
      if (!isPriceFault) {
        expect(collector.status().sources.find((s) => s.source === 'binance')?.reconnects).toBeGreaterThan(0);
      }
    },
  );

  it('serves the last committed prices after a restart while the coin sources are down', async () => {
    const rig = await startRig();
    const before = await firstFullSnapshot(rig);
    await rig.pipeline.stop();
    // Binance and Nobitex, its fallback for every coin in the built-in set-up, both down.
    rig.sim.setFault('drop', 'all');
    const restarted = await startRig({ sim: rig.sim, dataDir: rig.dataDir });
    const after = await waitFor(async () => {
      const latest = await restarted.store.snapshots.latestSnapshot();
      return latest && latest.id > before.id ? latest : null;
    }, 'the first commit after the restart');
    expect(after.rates).toEqual(before.rates);
    expect(after.usdt_irt).toBe(before.usdt_irt);
  });
});

describe('pipeline with a sources file, against the simulator', () => {
  /** The simulator's toman ask as a published sell_irt: a whole toman, null below half a toman. */
  const wholeToman = (ask: string) => {
    const toman = Math.round(Number(ask));
    return toman > 0 ? toman : null;
  };

  function startWith(sim: ExchangeSimulator, sourcesText: string) {
    return startSourcesPipeline({
      catalog,
      sourcesText: againstSimulator(sim, sourcesText),
      tuning: { refreshMs: 150, statusIntervalMs: 100, firstCommitGraceMs: 2000, pollMs: 50, minPollMs: 50 },
      onCleanup: (cleanup) => cleanups.push(cleanup),
    });
  }

  async function simulator() {
    const sim = await ExchangeSimulator.start({ catalog, seed: 21, autoTick: false, pingIntervalMs: 100 });
    cleanups.push(() => sim.stop());
    return sim;
  }

  it("publishes the Wallex preset's toman prices as Wallex's askPrice, with no ÷ 10, and its tether asks", async () => {
    const sim = await simulator();
    const { store } = await startWith(sim, readFileSync(join(projectRoot, 'sources', 'wallex.yaml'), 'utf8'));
    const snapshot = await waitFor(async () => {
      const latest = await store.snapshots.latestSnapshot();
      return latest?.rates.length === catalog.length ? latest : null;
    }, 'a snapshot with every coin');
    expect(snapshot.source).toBe('wallex');
    expect(snapshot.usdt_irt).toBe(wholeToman(sim.tomanAskOf('USDT')));
    for (const entry of catalog) {
      const row = rowOf(snapshot, entry.symbol);
      expect([entry.symbol, row?.sell_irt]).toEqual([entry.symbol, wholeToman(sim.tomanAskOf(entry.symbol))]);
      if (entry.pair !== null) expect(row?.sell_usdt).toBe(Number(sim.askOf(entry.pair)));
    }
  });

  it("reads a made-up exchange's document through a json-http mapping", async () => {
    const sim = await simulator();
    const { store } = await startWith(
      sim,
      `sources:
  - name: my-panel
    kind: json-http
    url: "{panel}"
    poll_seconds: 1
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
    );
    const snapshot = await waitFor(async () => {
      const latest = await store.snapshots.latestSnapshot();
      return latest?.rates.length === catalog.length ? latest : null;
    }, 'a snapshot with every coin');
    expect(snapshot.source).toBe('my-panel');
    expect(snapshot.usdt_irt).toBe(wholeToman(sim.tomanAskOf('USDT')));
    const btc = rowOf(snapshot, 'BTC');
    expect(btc).toMatchObject({
      sell_irt: wholeToman(sim.tomanAskOf('BTC')),
      sell_usdt: Number(sim.askOf('BTCUSDT')),
    });
    expect(typeof btc?.change_24h).toBe('number');
  });

  it('serves the coins from Nobitex while Binance is geo-blocked from the start, and returns them to Binance after return_after_seconds', {
    timeout: 30_000,
  }, async () => {
    const sim = await simulator();
    sim.setFault('geo-block', 'binance');
    const dataDir = mkdtempSync(join(tmpdir(), 'nerkh-geo-block-'));
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const config = loadConfig({
      NERKH_DATA_DIR: dataDir,
      PORT: '0',
      NERKH_PUBLIC_URL: 'https://rates.example',
    });
    const logs: LogLine[] = [];
    const sources = parseSources(
      againstSimulator(
        sim,
        `sources:
  - { name: binance, kind: binance, url: "wss://stream.binance.com:9443", rest_url: "https://api.binance.com" }
  - { name: nobitex, kind: nobitex, url: "https://apiv2.nobitex.ir", poll_seconds: 3 }
routes:
  default: { usdt: [binance, nobitex] }
  coins:
    USDT: { toman: [nobitex] }
failover: { stale_seconds: 5, return_after_seconds: 3 }
`,
      ),
      'sources.yaml',
      { catalog, env: {} },
    );
    const startedAt = Date.now();
    const service = await startService({
      config,
      logger: createLogger('info', { write: (line: string) => logs.push(JSON.parse(line) as LogLine) }),
      role: 'all',
      sources,
      tuning: {
        refreshMs: 200,
        statusIntervalMs: 100,
        firstCommitGraceMs: 3000,
        pollMs: 100,
        minPollMs: 50,
        backoffBaseMs: 20,
        backoffMaxMs: 100,
        refusedBackoffMaxMs: 200,
      },
    });
    cleanups.push(() => service.stop());
    interface Check {
      status: string;
      observedValue: string;
      output: string;
      coins: number;
    }
    const health = async () =>
      ((await (await fetch(`${service.url}/v1/health`)).json()) as { checks: Record<string, [Check]> })
        .checks;
    const coinCount = catalog.length - 1;

    // Blocked: every coin from Nobitex, at once, far within the stale time.
    const blocked = await waitFor(async () => {
      const latest = await service.store.snapshots.latestSnapshot();
      return latest?.rates.length === catalog.length ? latest : null;
    }, 'a snapshot with every coin');
    expect(Date.now() - startedAt).toBeLessThan(5000);
    expect(blocked.source).toBe('nobitex');
    for (const entry of catalog) {
      if (entry.pair !== null)
        expect(rowOf(blocked, entry.symbol)?.sell_usdt).toBe(Number(sim.askOf(entry.pair)));
    }
    const before = await waitFor(async () => {
      const checks = await health();
      return checks['nobitex:connection']?.[0].coins === catalog.length ? checks : null;
    }, 'health counting the coins Nobitex serves');
    expect(before['binance:connection']?.[0]).toMatchObject({
      status: 'warn',
      observedValue: 'down',
      output: expect.stringMatching(
        // REST's 451 carries Binance's message; the stream upgrade's has an empty body.
        /^HTTP 451(: Service unavailable from a restricted location according to| Unavailable For Legal Reasons)/,
      ),
      coins: 0,
    });

    // Lifted: Binance answers and quotes again, but must serve for 3 s before the coins return.
    sim.setFault('none', 'binance');
    const liftedAt = Date.now();
    const ticker = setInterval(() => {
      for (const entry of catalog) if (entry.pair !== null) sim.tick(entry.pair);
    }, 100);
    cleanups.push(async () => clearInterval(ticker));
    const during = await waitFor(async () => {
      const checks = await health();
      return checks['binance:connection']?.[0].observedValue === 'up' ? checks : null;
    }, 'Binance up again');
    expect(Date.now() - liftedAt).toBeLessThan(3000);
    expect(during['binance:connection']?.[0]).toMatchObject({ status: 'pass', coins: 0 });
    expect(during['nobitex:connection']?.[0].coins).toBe(catalog.length);

    // Returned: once Binance has been usable for return_after_seconds.
    const after = await waitFor(
      async () => {
        const checks = await health();
        return checks['binance:connection']?.[0].coins === coinCount ? checks : null;
      },
      'the coins back on Binance',
      10_000,
    );
    expect(Date.now() - liftedAt).toBeGreaterThanOrEqual(3000);
    expect(after['nobitex:connection']?.[0].coins).toBe(1);
    const returned = await waitFor(async () => {
      const latest = await service.store.snapshots.latestSnapshot();
      return latest?.source === 'binance+nobitex' ? latest : null;
    }, 'a snapshot priced by Binance');
    expect(returned.rates).toHaveLength(catalog.length);
    // Logged by event, not per coin: coins whose quotes resumed a moment apart may return in two lines.
    const returns = logs.filter((line) => line.msg === 'coin returned to its primary');
    expect(returns.every((line) => line.from === 'nobitex' && line.to === 'binance')).toBe(true);
    expect(returns.reduce((sum, line) => sum + (line.count ?? 0), 0)).toBe(coinCount);
    expect(logs.filter((line) => line.msg === 'coin failed over')).toEqual([]);
  });
});

describe('pipeline: a source quoting in the wrong unit (docs/sources.md#the-price-guard)', () => {
  const coinPairs = catalog.flatMap((entry) => (entry.pair === null ? [] : [entry.pair]));

  it.each(['times-ten', 'tenth', 'absurd'] as const)(
    'never publishes Binance under "%s": Nobitex prices its coins meanwhile, and health names them',
    async (fault) => {
      const rig = await startRig();
      const { sim, pipeline } = rig;
      const collector = pipeline.collector;
      await firstFullSnapshot(rig);
      sim.setFault(fault, 'binance');
      await waitFor(() => {
        for (const pair of coinPairs) sim.tick(pair);
        return collector.status().held?.length === coinPairs.length;
      }, `every coin held under "${fault}"`);
      const snapshot = await collector.commitNow();
      expect(snapshot).not.toBeNull();
      if (snapshot) expectPricedLikeTheSimulator(snapshot, sim);
      expect(new Set(collector.servedBy().values())).toEqual(new Set(['nobitex']));
      expect(collector.status().held).toContainEqual(
        expect.objectContaining({ symbol: 'BTC', currency: 'usdt', source: 'binance', served_by: 'nobitex' }),
      );

      sim.setFault('none', 'binance');
      await waitFor(() => {
        for (const pair of coinPairs) sim.tick(pair);
        return collector.status().held?.length === 0;
      }, 'the holds to end');
    },
  );

  it("keeps tether's last rate when its only source quotes ×1,000, and names it in health", async () => {
    const rig = await startRig();
    const { sim, pipeline } = rig;
    const collector = pipeline.collector;
    const good = await firstFullSnapshot(rig);
    sim.setFault('absurd', 'nobitex');
    await waitFor(
      () => collector.status().held?.some((held) => held.symbol === 'USDT'),
      'tether held under "absurd"',
    );
    const snapshot = await collector.commitNow();
    expect(snapshot?.usdt_irt).toBe(good.usdt_irt);
    expect(rowOf(snapshot, 'USDT')).toEqual(rowOf(good, 'USDT'));
    expect(collector.status().held).toContainEqual({
      symbol: 'USDT',
      currency: 'toman',
      source: 'nobitex',
      price: (good.usdt_irt as number) * 1000,
      reference: good.usdt_irt,
      reason: 'own-price',
      since: expect.any(String),
      served_by: 'nobitex',
    });
  });
});
