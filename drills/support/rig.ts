import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCatalog } from '../../src/catalog/catalog-file.ts';
import { loadConfig } from '../../src/config.ts';
import { issueApiKey } from '../../src/keys/issue-key.ts';
import { ExchangeSimulator } from '../../src/simulator/exchange-simulator.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { OpenedStore } from '../../src/store/types.ts';

/** Registers a clean-up step: a test passes `onTestFinished`, a script a list it runs at the end. */
export type Teardown = (step: () => unknown) => void;

/** Where a drill says what it does (a line each). */
export type Say = (line: string) => void;

/** Clean-up steps a script runs, latest first, however the drill ended. */
export class TeardownList {
  readonly #steps: Array<() => unknown> = [];
  readonly add: Teardown = (step) => {
    this.#steps.push(step);
  };

  async run(): Promise<void> {
    for (const step of this.#steps.reverse()) {
      try {
        await step();
      } catch (error) {
        process.stderr.write(`clean-up step failed: ${(error as Error).message}\n`);
      }
    }
  }
}

/** The exchange simulator with every bundled coin, stopped at teardown. */
export async function startSimulator(teardown: Teardown, seed = 17): Promise<ExchangeSimulator> {
  const sim = await ExchangeSimulator.start({ catalog: loadCatalog(), seed });
  teardown(() => sim.stop());
  return sim;
}

/** The built-in sources (Binance, Nobitex) pointed at the simulator. */
export function simulatorEnv(sim: ExchangeSimulator): Record<string, string> {
  return {
    NERKH_BINANCE_WS_URL: sim.wsBaseUrl,
    NERKH_BINANCE_REST_URL: sim.restBaseUrl,
    NERKH_NOBITEX_URL: sim.nobitexBaseUrl,
    NERKH_NOBITEX_POLL_SECONDS: '3',
  };
}

/** A fresh data directory, removed at teardown. */
export function tempDataDir(teardown: Teardown, name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `nerkh-drill-${name}-`));
  teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The store nerkh uses with these settings, opened by the drill as `nerkh keys` opens it. */
export async function openDrillStore(teardown: Teardown, env: Record<string, string>): Promise<OpenedStore> {
  const store = await openStore(loadConfig({ ...env, LOG_LEVEL: 'silent' }));
  teardown(() => store.close());
  return store;
}

/** Issues `count` keys with a limit high enough that only the fault under test refuses requests. */
export async function issueKeys(store: OpenedStore, count: number, org = 'Drill client'): Promise<string[]> {
  const keys: string[] = [];
  for (let index = 0; index < count; index++) {
    const issued = await issueApiKey(store.keys, { org, purpose: 'fault drill load', rateLimit: 1_000_000 });
    keys.push(issued.key);
  }
  return keys;
}

/** The body of `/v1/health`, or the reason none came. */
export async function healthOf(url: string): Promise<HealthBody | string> {
  try {
    const response = await fetch(`${url}/v1/health`, { signal: AbortSignal.timeout(5000) });
    const body = (await response.json()) as HealthBody & { code?: string };
    if (body.checks === undefined) return `HTTP ${response.status} ${body.code ?? ''}`;
    return body;
  } catch (error) {
    return `no answer (${(error as Error).message})`;
  }
}

export interface HealthBody {
  status: string;
  updated_at: string | null;
  checks: Record<string, Array<{ status: string; observedValue: unknown; output: string }>>;
}

/** `pass; snapshot:age pass 3 s; binance:connection warn stalled` — the checks in one line. */
export function healthLine(health: HealthBody | string): string {
  if (typeof health === 'string') return health;
  const checks = Object.entries(health.checks).map(([name, [check]]) => {
    const coins = (check as { coins?: number } | undefined)?.coins;
    return `${name} ${check?.status} ${String(check?.observedValue)}${coins === undefined ? '' : ` (${coins} coins)`}`;
  });
  return `${health.status}; ${checks.join('; ')}`;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Waits until nerkh serves its first snapshot (the collector's first commit). */
export async function waitForRates(url: string, key: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const status = await fetch(`${url}/v1/rates`, { headers: { 'X-API-Key': key } }).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) return;
    await sleep(100);
  }
  throw new Error(`nerkh served no rates within ${timeoutMs} ms`);
}

/** Resolves once `check` resolves true (a rejection counts as not yet); fails after `timeoutMs`. */
export async function waitForCondition(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`not recovered within ${timeoutMs} ms`);
    await sleep(200);
  }
}
