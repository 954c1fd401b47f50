import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../src/project-root.ts';
import { SIMULATOR_FAULTS, type SimulatorFault } from '../src/simulator/faults.ts';
import { againstSimulator } from '../test/support/simulated-sources.ts';
import { isMain, runDrillCommand } from './support/drill-cli.ts';
import { countOutside, Load, type PhaseResult, phaseLine } from './support/load.ts';
import { NerkhProcess } from './support/nerkh-process.ts';
import {
  type HealthBody,
  healthLine,
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
 * Every fault the exchange simulator can put Binance in, one after the other, while clients
 * request rates: dropped and stalled connections, malformed, negative, NaN and absurd prices, 429,
 * 5xx and the geo-block (451). Clients must keep getting 200 from the last good prices; a fault
 * that lasts past the stale bound moves Binance's coins to Nobitex (a failover), and they return
 * once Binance has been well again for the return bound.
 * The sources are the `binance-failover` preset with short bounds, pointed at the simulator.
 */
export interface SourceFaultsOptions {
  /** How long each fault lasts, seconds (past `stale`, so each one fails the coins over). */
  faultSeconds: number;
  /** Failover bound: a coin whose source has not priced it this long moves on, seconds. */
  stale: number;
  /** Return bound: the primary must serve this long before coins move back, seconds. */
  returnAfter: number;
  clients: number;
}

export interface SourceFaultsResult {
  ok: boolean;
  phases: PhaseResult[];
  /** Per fault: coins Binance served at its end, and once it had begun serving again. */
  coins: Array<{ fault: SimulatorFault; during: number; returned: number }>;
}

/** Rows each source serves, from /v1/health (`<source>:connection` → `coins`). */
function coinsOf(health: HealthBody | string, source: string): number {
  if (typeof health === 'string') return -1;
  const check = health.checks[`${source}:connection`]?.[0] as { coins?: number } | undefined;
  return check?.coins ?? 0;
}

export async function sourceFaultsDrill(
  options: SourceFaultsOptions,
  say: Say,
  teardown: Teardown,
): Promise<SourceFaultsResult> {
  const sim = await startSimulator(teardown);
  const dataDir = tempDataDir(teardown, 'source-faults');
  const sourcesFile = join(dataDir, 'sources.yaml');
  const preset = readFileSync(join(projectRoot, 'sources', 'binance-failover.yaml'), 'utf8')
    .replace(/stale_seconds: \d+/, `stale_seconds: ${options.stale}`)
    .replace(/return_after_seconds: \d+/, `return_after_seconds: ${options.returnAfter}`)
    .replaceAll('poll_seconds: 10', 'poll_seconds: 3');
  writeFileSync(sourcesFile, againstSimulator(sim, preset));
  const env = { NERKH_DATA_DIR: dataDir, NERKH_SOURCES_FILE: sourcesFile, NERKH_REFRESH_SECONDS: '2' };
  // A key may be allowed at most 1,000,000 requests a window, and the load can send more than that
  // in a minute: it rotates over keys enough for any machine, so only a fault refuses a request.
  const keys = await issueKeys(await openDrillStore(teardown, env), 16);
  const key = keys[0] as string;
  let sent = 0;
  const nextKey = () => keys[sent++ % keys.length] as string;
  const nerkh = await NerkhProcess.start({ role: 'all', env });
  teardown(() => nerkh.stop());
  await waitForRates(nerkh.url, key);
  // Binance prices every coin in tether but USDT, which Nobitex prices in toman: wait until Binance
  // has all of its own (its count no longer grows) before the first fault.
  let allCoins = 0;
  await waitForCondition(async () => {
    const now = coinsOf(await healthOf(nerkh.url), 'binance');
    const settled = now > 0 && now === allCoins;
    allCoins = now;
    if (!settled) await sleep(1000);
    return settled;
  }, 60_000);
  // Coins return one by one, each once Binance has priced it again for the return bound: a coin
  // that rarely trades takes longer. Binance serving again is the return; the count says how far.
  const binanceServesAgain = async () => coinsOf(await healthOf(nerkh.url), 'binance') > 0;
  say(
    `nerkh on ${nerkh.url}; Binance serves ${allCoins} coins; failover after ${options.stale} s, return after ${options.returnAfter} s`,
  );

  const load = new Load({ url: nerkh.url, key: nextKey, concurrency: options.clients }, 'before');
  load.start();
  await sleep(2000);
  say(phaseLine(load.current));
  const coins: SourceFaultsResult['coins'] = [];
  for (const fault of SIMULATOR_FAULTS.filter((candidate) => candidate !== 'none')) {
    load.phase(fault);
    sim.setFault(fault, 'binance');
    await sleep(options.faultSeconds * 1000);
    const health = await healthOf(nerkh.url);
    const during = coinsOf(health, 'binance');
    say(`${fault}: ${phaseLine(load.current)}`);
    say(`${fault}: health ${healthLine(health)}`);
    sim.setFault('none', 'binance');
    load.phase(`${fault}→ok`);
    await waitForCondition(binanceServesAgain, 60_000 + options.returnAfter * 1000).catch(async (error) => {
      say(`${fault}: not back: health ${healthLine(await healthOf(nerkh.url))}`);
      throw error;
    });
    const returned = coinsOf(await healthOf(nerkh.url), 'binance');
    say(
      `${fault}: Binance served ${during} coins during the fault, ${returned} after it returned; ${phaseLine(load.current)}`,
    );
    coins.push({ fault, during, returned });
  }
  load.phase('after');
  await sleep(options.returnAfter * 1000 + 2000);
  const finalCoins = coinsOf(await healthOf(nerkh.url), 'binance');
  const phases = await load.stop();
  for (const phase of phases) say(phaseLine(phase));
  const failed = phases.reduce((sum, phase) => sum + countOutside(phase.tally, ['200']), 0);
  const geoBlock = coins.find((entry) => entry.fault === 'geo-block');
  say(
    `requests that did not get 200: ${failed}; geo-block moved ${allCoins - (geoBlock?.during ?? 0)} coins away from Binance and ${geoBlock?.returned ?? 0} back at once; at the end Binance serves ${finalCoins} of ${allCoins}`,
  );
  const ok =
    failed === 0 &&
    nerkh.alive &&
    geoBlock !== undefined &&
    geoBlock.during === 0 &&
    coins.every((entry) => entry.returned > 0);
  return { ok, phases, coins };
}

if (isMain(import.meta.url)) {
  await runDrillCommand<SourceFaultsOptions>({
    name: 'source-faults',
    description:
      'Puts the simulated Binance in every fault mode in turn (drop, stall, malformed, negative, nan,\nabsurd, http-429, http-5xx, geo-block) while clients request rates, with the binance-failover\nsources. Passes when every request got 200, the geo-blocked Binance lost all its coins to the\nfallbacks, and after each fault Binance served coins again.',
    options: {
      faultSeconds: { default: 10, help: 'seconds each fault lasts' },
      stale: { default: 4, help: "failover bound (the sources file's stale_seconds)" },
      returnAfter: { default: 5, help: "return bound (the sources file's return_after_seconds)" },
      clients: { default: 4, help: 'concurrent clients' },
    },
    run: sourceFaultsDrill,
  });
}
