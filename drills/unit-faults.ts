import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadCatalog } from '../src/catalog/catalog-file.ts';
import type { RatesResponse } from '../src/domain/rates.ts';
import type { ExchangeSimulator } from '../src/simulator/exchange-simulator.ts';
import type { Exchange, SimulatorFault } from '../src/simulator/faults.ts';
import { againstSimulator } from '../test/support/simulated-sources.ts';
import { isMain, runDrillCommand } from './support/drill-cli.ts';
import { NerkhProcess } from './support/nerkh-process.ts';
import {
  type HealthBody,
  healthOf,
  issueKeys,
  openDrillStore,
  type Say,
  sleep,
  startSimulator,
  type Teardown,
  tempDataDir,
  waitForCondition,
  waitForRates,
} from './support/rig.ts';

/**
 * Sources that quote in the wrong unit, for minutes on end (docs/sources.md#the-price-guard): the
 * simulated Binance quotes ×10, then ÷10, then ×1,000, then Nobitex, tether's only source, quotes
 * ×1,000, each for `faultSeconds`; then every coin falls 60 % on both exchanges at once. A client
 * reads `/v1/rates` twice a second throughout and compares every published price with the
 * exchanges' own: no unit error may ever be published. During each Binance fault the coins must be
 * priced by Nobitex (their rows name it) and `/v1/health` must name the held coins; during the
 * Nobitex fault tether keeps its last rate; the crash must be published at the next snapshot.
 */
export interface UnitFaultsOptions {
  /** How long each unit fault lasts, seconds. */
  faultSeconds: number;
  /** The snapshot interval, seconds. */
  refresh: number;
}

interface FaultPhase {
  exchange: Exchange;
  fault: SimulatorFault;
  /** Rows a client read during it, and how many of them were priced by the faulty exchange. */
  rowsRead: number;
  rowsFromFaulty: number;
  /** `prices:held` entries in `/v1/health` at its end. */
  held: number;
  heldSources: string[];
}

export interface UnitFaultsResult {
  ok: boolean;
  phases: FaultPhase[];
  /** Published prices a unit-sized factor (×3 or more, or a third or less) from the exchanges'. */
  unitErrors: string[];
  /** Seconds from the crash until a snapshot published it, and the snapshot interval. */
  crashPublishedAfter: number | null;
  reads: number;
}

/** A coin no source has quoted for this long moves to its next source. */
const staleSeconds = 10;

/** Binance prices every coin, Nobitex is their fallback and tether's only source; short bounds. */
function sourcesYaml(refresh: number): string {
  return `sources:
  - { name: binance, kind: binance, url: "wss://stream.binance.com:9443", rest_url: "https://api.binance.com" }
  - { name: nobitex, kind: nobitex, url: "https://apiv2.nobitex.ir", poll_seconds: ${Math.max(3, refresh)} }
routes:
  default: { usdt: [binance, nobitex], toman: [] }
  coins:
    USDT: { toman: [nobitex] }
failover: { stale_seconds: ${staleSeconds}, return_after_seconds: 3 }
`;
}

/** Reads the rates in a loop, checking each published price against the simulator's. */
class PriceWatch {
  reads = 0;
  readonly unitErrors: string[] = [];
  rowsRead = 0;
  rowsFrom = new Map<string, number>();
  latest: RatesResponse | null = null;
  #running = true;
  #done: Promise<void>;

  constructor(
    private readonly url: string,
    private readonly key: string,
    private readonly sim: ExchangeSimulator,
    private readonly pairs: Map<string, string>,
  ) {
    this.#done = this.#loop();
  }

  /** Starts counting rows and their sources afresh. */
  reset(): void {
    this.rowsRead = 0;
    this.rowsFrom = new Map();
  }

  async #loop(): Promise<void> {
    while (this.#running) {
      const response = await fetch(`${this.url}/v1/rates`, { headers: { 'X-API-Key': this.key } }).catch(
        () => null,
      );
      if (response?.status === 200) {
        const body = (await response.json()) as RatesResponse;
        this.latest = body;
        this.reads++;
        this.#check(body);
      }
      await sleep(500);
    }
  }

  #check(body: RatesResponse): void {
    const tether = Number(this.sim.usdtBestSellRial()) / 10;
    if (body.usdt_irt !== null && unitApart(body.usdt_irt, tether))
      this.unitErrors.push(`usdt_irt ${body.usdt_irt} where Nobitex sells at ${tether} (${body.updated_at})`);
    for (const row of body.rates) {
      const pair = this.pairs.get(row.symbol);
      if (pair === undefined) continue;
      this.rowsRead++;
      this.rowsFrom.set(row.source, (this.rowsFrom.get(row.source) ?? 0) + 1);
      const ask = Number(this.sim.askOf(pair));
      if (unitApart(row.sell_usdt, ask))
        this.unitErrors.push(
          `${row.symbol} ${row.sell_usdt} USDT from ${row.source} where the ask is ${ask}`,
        );
    }
  }

  async stop(): Promise<void> {
    this.#running = false;
    await this.#done;
  }
}

/** Three times apart or more: no market moves that far between two reads. */
function unitApart(published: number, actual: number): boolean {
  const ratio = published / actual;
  return ratio >= 3 || ratio <= 1 / 3;
}

function heldOf(health: HealthBody | string): Array<{ output: string; source?: string }> {
  if (typeof health === 'string') return [];
  return (health.checks['prices:held'] ?? []) as Array<{ output: string; source?: string }>;
}

export async function unitFaultsDrill(
  options: UnitFaultsOptions,
  say: Say,
  teardown: Teardown,
): Promise<UnitFaultsResult> {
  const sim = await startSimulator(teardown);
  const dataDir = tempDataDir(teardown, 'unit-faults');
  const sourcesFile = join(dataDir, 'sources.yaml');
  writeFileSync(sourcesFile, againstSimulator(sim, sourcesYaml(options.refresh)));
  const env = {
    NERKH_DATA_DIR: dataDir,
    NERKH_SOURCES_FILE: sourcesFile,
    NERKH_REFRESH_SECONDS: String(options.refresh),
  };
  const [key] = (await issueKeys(await openDrillStore(teardown, env), 1)) as [string];
  const nerkh = await NerkhProcess.start({ role: 'all', env });
  teardown(() => nerkh.stop());
  await waitForRates(nerkh.url, key);
  const pairs = new Map(
    loadCatalog().flatMap((entry) => (entry.pair === null ? [] : [[entry.symbol, entry.pair]])),
  );
  const watch = new PriceWatch(nerkh.url, key, sim, pairs);
  teardown(() => watch.stop());
  // Binance prices every coin once it has quoted each: wait for that before the first fault.
  await waitForCondition(
    async () =>
      (watch.latest?.rates ?? []).every((row) => row.symbol === 'USDT' || row.source === 'binance') &&
      (watch.latest?.count ?? 0) > 1,
    60_000,
  );
  say(
    `nerkh on ${nerkh.url}; ${pairs.size} coins priced by binance, tether by nobitex; snapshots every ${options.refresh} s`,
  );

  const phases: FaultPhase[] = [];
  const plan: Array<[Exchange, SimulatorFault]> = [
    ['binance', 'times-ten'],
    ['binance', 'tenth'],
    ['binance', 'absurd'],
    ['nobitex', 'absurd'],
  ];
  for (const [exchange, fault] of plan) {
    sim.setFault(fault, exchange);
    // Counted once every coin has either been held or gone stale (a coin Binance did not tick),
    // and a snapshot has been committed since: from then on no row may name the faulty exchange.
    const settleMs = (staleSeconds + options.refresh) * 1000 + 1000;
    await sleep(settleMs);
    watch.reset();
    await sleep(Math.max(1000, options.faultSeconds * 1000 - settleMs));
    const held = heldOf(await healthOf(nerkh.url));
    const phase: FaultPhase = {
      exchange,
      fault,
      rowsRead: watch.rowsRead,
      rowsFromFaulty: watch.rowsFrom.get(exchange) ?? 0,
      held: held.length,
      heldSources: [...new Set(held.map((entry) => entry.source ?? ''))],
    };
    phases.push(phase);
    say(
      `${exchange} ${fault} for ${options.faultSeconds} s: ${phase.rowsRead} coin rows read, ${phase.rowsFromFaulty} priced by ${exchange}; health holds ${phase.held} (${phase.heldSources.join(', ')}); e.g. ${held[0]?.output ?? 'none'}`,
    );
    sim.setFault('none', exchange);
    // Every market quotes once at once (an unchanged tick), so each hold ends now rather than at
    // the coin's next trade, which for a quiet coin can be a minute away.
    for (const pair of pairs.values()) sim.tick(pair);
    await waitForCondition(async () => heldOf(await healthOf(nerkh.url)).length === 0, 60_000);
  }

  // A crash both exchanges show: every coin −60 % at once.
  const before = watch.latest as RatesResponse;
  const crashAt = Date.now();
  for (const pair of pairs.values()) sim.tick(pair, (Number(sim.askOf(pair)) * 0.4).toFixed(8));
  // Set from inside the wait below; a holder, so the compiler does not narrow it to null.
  const crash: { publishedAfter: number | null } = { publishedAfter: null };
  await waitForCondition(async () => {
    const btc = watch.latest?.rates.find((row) => row.symbol === 'BTC');
    const was = before.rates.find((row) => row.symbol === 'BTC');
    if (btc === undefined || was === undefined || btc.sell_usdt > was.sell_usdt * 0.5) return false;
    crash.publishedAfter = (Date.parse(watch.latest?.updated_at ?? '') - crashAt) / 1000;
    return true;
  }, 60_000).catch(() => undefined);
  say(
    `−60 % on both exchanges: published by the snapshot of ${crash.publishedAfter === null ? 'none within 60 s' : `${crash.publishedAfter.toFixed(1)} s after the crash`} (snapshots every ${options.refresh} s)`,
  );
  await watch.stop();
  say(`${watch.reads} reads of /v1/rates; unit errors published: ${watch.unitErrors.length}`);
  for (const error of watch.unitErrors.slice(0, 10)) say(`  ${error}`);

  const binancePhases = phases.filter((phase) => phase.exchange === 'binance');
  const ok =
    watch.unitErrors.length === 0 &&
    nerkh.alive &&
    binancePhases.every((phase) => phase.rowsRead > 0 && phase.rowsFromFaulty === 0 && phase.held > 0) &&
    phases.every((phase) => phase.heldSources.length === 1 && phase.heldSources[0] === phase.exchange) &&
    crash.publishedAfter !== null &&
    crash.publishedAfter <= Math.max(3, options.refresh) + options.refresh + 3;
  return {
    ok,
    phases,
    unitErrors: watch.unitErrors,
    crashPublishedAfter: crash.publishedAfter,
    reads: watch.reads,
  };
}

if (isMain(import.meta.url)) {
  await runDrillCommand<UnitFaultsOptions>({
    name: 'unit-faults',
    description:
      "Puts the simulated Binance in the unit mistakes ×10, ÷10 and ×1,000 in turn, then Nobitex (tether's only\nsource) in ×1,000, each for --faultSeconds, then drops every coin 60 % on both exchanges, while a\nclient reads the rates twice a second. Passes when no published price was ever a unit-sized factor\nfrom the exchanges', Nobitex priced the coins during each Binance fault (their rows name it), health\nnamed the held source each time, and the crash was published at the next snapshot.",
    options: {
      faultSeconds: {
        default: 105,
        help: 'seconds each unit fault lasts, over 16 (4 faults: 7 minutes at 105)',
      },
      refresh: { default: 5, help: 'snapshot interval, seconds (NERKH_REFRESH_SECONDS)' },
    },
    run: unitFaultsDrill,
  });
}
