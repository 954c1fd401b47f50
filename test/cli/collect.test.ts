import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { loadCatalog } from '../../src/catalog/catalog-file.ts';
import { loadConfig } from '../../src/config.ts';
import { ExchangeSimulator } from '../../src/simulator/exchange-simulator.ts';
import { openStore } from '../../src/store/open-store.ts';

/** `nerkh collect` as an operator runs it: a real process, real sockets, signals. */

const bin = fileURLToPath(new URL('../../bin/nerkh.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'nerkh-collect-'));
let sim: ExchangeSimulator;

beforeAll(async () => {
  sim = await ExchangeSimulator.start({ catalog: loadCatalog(), seed: 11, autoTick: false });
});
afterAll(async () => {
  await sim.stop();
  rmSync(dir, { recursive: true, force: true });
});

function runCollect(env: Record<string, string>) {
  const child = spawn(process.execPath, [bin, 'collect'], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // A test that fails before the process exits must not leave it running.
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, output: () => ({ stdout, stderr }) };
}

describe('nerkh collect', () => {
  it('collects into the data directory, logs each commit, and stops cleanly on SIGTERM', async () => {
    const dataDir = join(dir, 'data');
    const run = runCollect({
      NERKH_DATA_DIR: dataDir,
      NERKH_BINANCE_WS_URL: sim.wsBaseUrl,
      NERKH_BINANCE_REST_URL: sim.restBaseUrl,
      NERKH_NOBITEX_URL: sim.nobitexBaseUrl,
      NERKH_NOBITEX_POLL_SECONDS: '3',
    });
    const deadline = Date.now() + 15_000;
    while (!run.output().stdout.includes('"msg":"snapshot committed"')) {
      if (Date.now() > deadline) throw new Error(`no commit logged: ${JSON.stringify(run.output())}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);

    const lines = run
      .output()
      .stdout.trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const commit = lines.find((line) => line.msg === 'snapshot committed');
    expect(commit).toMatchObject({ id: 1, count: loadCatalog().length, usdt_irt: 105_299 });
    expect(typeof commit?.duration_ms).toBe('number');
    expect(lines.at(-1)?.msg).toBe('collector stopped');

    const store = await openStore(loadConfig({ NERKH_DATA_DIR: dataDir }));
    try {
      const snapshot = await store.snapshots.latestSnapshot();
      expect(snapshot?.id).toBe(1);
      expect(snapshot?.rates).toHaveLength(loadCatalog().length);
      const status = await store.snapshots.getCollectorStatus();
      expect(status?.sources.map((source) => source.detail)).toEqual(['stopped', 'stopped']);
    } finally {
      await store.close();
    }
  });

  it('refuses a bad setting with a one-line reason naming it, exit 1', async () => {
    const run = runCollect({ NERKH_DATA_DIR: join(dir, 'unused'), NERKH_REFRESH_SECONDS: 'ten' });
    expect(await run.exited).toBe(1);
    expect(run.output().stderr).toMatch(/^nerkh: invalid configuration: NERKH_REFRESH_SECONDS="ten": .*\n$/);
  });

  it('refuses a broken catalog with a one-line reason naming the file, exit 1', async () => {
    const catalog = join(dir, 'missing.json');
    const run = runCollect({ NERKH_DATA_DIR: join(dir, 'unused'), NERKH_CATALOG: catalog });
    expect(await run.exited).toBe(1);
    expect(run.output().stderr).toBe(`nerkh: catalog ${catalog}: cannot read (ENOENT)\n`);
  });
});
