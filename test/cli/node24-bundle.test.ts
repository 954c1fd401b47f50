import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { issueApiKey } from '../../src/keys/issue-key.ts';
import { projectRoot } from '../../src/project-root.ts';
import { openStore } from '../../src/store/open-store.ts';
import { binPath, freePort } from '../support/run-cli.ts';
import { sampleSnapshot } from '../support/test-app.ts';

const execFileAsync = promisify(execFile);

/**
 * The production bundle on Node.js 24, the recommended runtime (docs/deployment.md#nodejs-versions).
 * Node 24.19 to 24.21 aborted nerkh at its first chart, when V8 collected a better-sqlite3 object
 * (docs/decisions/0038-node-24-from-24-22.md): this starts the bundle as the bin does, serves the
 * charts and the keyed API, and stops it. It needs the suite itself to run on Node 24, since
 * better-sqlite3 in node_modules is built for the Node that installed it: `.ci/run`'s Node 24 pass
 * runs it there (`.ci/with-node24`), with NERKH_REQUIRE_NODE24=1, which makes it fail elsewhere.
 */
const onNode24 = process.versions.node.split('.')[0] === '24';
if (!onNode24) {
  const reason = `it runs on Node 24 and this is Node ${process.versions.node}`;
  if (process.env.NERKH_REQUIRE_NODE24 === '1') throw new Error(`NERKH_REQUIRE_NODE24=1 but ${reason}`);
  process.stdout.write(
    `the production bundle on Node 24 skipped: ${reason}; .ci/run's Node 24 pass runs it (.ci/with-node24)\n`,
  );
}

/** The variable and the Node flags the bin's first line starts node with. */
function binStart(): { env: Record<string, string>; flags: string[] } {
  const words = (readFileSync(binPath, 'utf8').split('\n')[0] ?? '').split(' ');
  const nodeAt = words.indexOf('node');
  const env = Object.fromEntries(words.slice(2, nodeAt).map((word) => word.split('=') as [string, string]));
  return { env, flags: words.slice(nodeAt + 1) };
}

describe.skipIf(!onNode24)('the production bundle on Node 24', () => {
  let workDir: string;
  let bundle: string;
  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), 'nerkh-node24-'));
    mkdirSync(join(projectRoot, 'dist'), { recursive: true });
    const bundleDir = mkdtempSync(join(projectRoot, 'dist', 'test-'));
    bundle = join(bundleDir, 'nerkh.js');
    await execFileAsync('npm', ['run', 'build', '--', `--outfile=${bundle}`], { cwd: projectRoot });
  }, 60_000);
  afterAll(() => {
    rmSync(workDir, { recursive: true, force: true });
    if (bundle !== undefined) rmSync(join(bundle, '..'), { recursive: true, force: true });
  });

  it('starts with the bin flags, serves the charts and a keyed /v1/rates, and exits 0 on SIGTERM', {
    timeout: 60_000,
  }, async () => {
    const dataDir = join(workDir, 'data');
    const config = loadConfig({ NERKH_DATA_DIR: dataDir });
    const store = await openStore(config);
    // A day of history, so each coin page draws its charts from the store.
    const now = Date.now();
    for (let hour = 24; hour >= 0; hour--) {
      await store.snapshots.commitSnapshot(sampleSnapshot(new Date(now - hour * 3_600_000).toISOString()));
    }
    const { key } = await issueApiKey(store.keys, { org: 'A', purpose: 'p' });
    await store.close();

    const port = await freePort();
    const start = binStart();
    // The small young generation collects the start-up statements at once, where 24.19–24.21 abort.
    expect(start.flags).toContain('--max-semi-space-size=2');
    const child = spawn(process.execPath, [...start.flags, bundle, 'serve', '--role', 'api'], {
      env: {
        ...process.env,
        ...start.env,
        PORT: String(port),
        NERKH_DATA_DIR: dataDir,
        NERKH_DRAIN_SECONDS: '0',
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      child.on('exit', (code, signal) => resolve({ code, signal })),
    );
    try {
      await new Promise<void>((resolve, reject) => {
        let logs = '';
        child.stdout?.on('data', (chunk: Buffer) => {
          logs += chunk.toString();
          if (logs.includes('nerkh is running')) resolve();
        });
        child.once('exit', (code, signal) =>
          reject(new Error(`nerkh exited (${code ?? signal}) before it ran: ${stderr}`)),
        );
      });
      const base = `http://127.0.0.1:${port}`;
      // Each chart leaves statement iterators behind for V8 to collect: enough pages that it does.
      for (let round = 0; round < 40; round++) {
        for (const path of ['/', '/coins/BTC', '/coins/ETH', '/fa/coins/BTC']) {
          const page = await fetch(`${base}${path}`);
          expect(page.status, `${path}: ${stderr}`).toBe(200);
          await page.arrayBuffer();
        }
      }
      const coinPage = await (await fetch(`${base}/coins/BTC`)).text();
      expect(coinPage).toContain('<svg');
      const rates = await fetch(`${base}/v1/rates?symbol=btc`, { headers: { 'x-api-key': key } });
      expect(rates.status).toBe(200);
      const body = (await rates.json()) as { rates: Array<{ symbol: string; sell_usdt: number }> };
      expect(body.rates).toEqual([expect.objectContaining({ symbol: 'BTC', sell_usdt: 97_250.5 })]);

      child.kill('SIGTERM');
      expect(await exited).toEqual({ code: 0, signal: null });
      expect(stderr).not.toContain('Assertion failed');
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });
});
