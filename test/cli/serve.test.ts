import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { issueApiKey } from '../../src/keys/issue-key.ts';
import { projectRoot } from '../../src/project-root.ts';
import { openStore } from '../../src/store/open-store.ts';
import { redisAvailable, startPrivateRedis } from '../support/redis.ts';
import { binPath, freePort, runCli } from '../support/run-cli.ts';
import { sampleSnapshot } from '../support/test-app.ts';
import { waitFor } from '../support/wait.ts';

const execFileAsync = promisify(execFile);
/** Where Redis runs (and its redis-server is installed), one of its own is started for the TLS test. */
const redisRuns = await redisAvailable('nerkh serve with a Redis of its own');

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'nerkh-cli-serve-'));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

/** The production bundle (`npm run build`), built once into a folder of its own under dist/ for these tests. */
let bundleDir: string;
beforeAll(async () => {
  mkdirSync(join(projectRoot, 'dist'), { recursive: true });
  bundleDir = mkdtempSync(join(projectRoot, 'dist', 'test-'));
  await execFileAsync('npm', ['run', 'build', '--', `--outfile=${join(bundleDir, 'nerkh.js')}`], {
    cwd: projectRoot,
  });
}, 60_000);
afterAll(() => rmSync(bundleDir, { recursive: true, force: true }));

describe.each([
  ['the bin', () => binPath],
  ['the bundle', () => join(bundleDir, 'nerkh.js')],
])('nerkh serve, run from %s', (_, entry) => {
  it("--role api serves what is in the store (no collector), writes the keys' last use and usage and exits 0 on SIGTERM", {
    timeout: 30_000,
  }, async () => {
    const config = loadConfig({ NERKH_DATA_DIR: dataDir });
    const store = await openStore(config);
    await store.snapshots.commitSnapshot(sampleSnapshot(new Date().toISOString()));
    const { key, record } = await issueApiKey(store.keys, { org: 'A', purpose: 'p' });
    await store.close();

    const port = await freePort();
    const child = spawn(process.execPath, [entry(), 'serve', '--role', 'api'], {
      // No balancer in front to wait for: the drain has tests of its own below.
      env: {
        ...process.env,
        PORT: String(port),
        NERKH_DATA_DIR: dataDir,
        NERKH_DRAIN_SECONDS: '0',
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      await new Promise<void>((resolve, reject) => {
        let logs = '';
        child.stdout?.on('data', (chunk: Buffer) => {
          logs += chunk.toString();
          if (logs.includes('nerkh is running')) resolve();
        });
        child.once('exit', (code) => reject(new Error(`nerkh exited with code ${code} before it ran`)));
      });
      const before = Date.now();
      const response = await fetch(`http://127.0.0.1:${port}/v1/rates?symbol=usdt`, {
        headers: { 'x-api-key': key },
      });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { rates: Array<{ symbol: string }> };
      expect(body.rates[0]?.symbol).toBe('USDT');
      // A burst past the limit (60 a minute): 60 admitted in all, 2 refused.
      const statuses: number[] = [];
      for (let request = 0; request < 61; request++) {
        const answer = await fetch(`http://127.0.0.1:${port}/v1/rates`, { headers: { 'x-api-key': key } });
        await answer.arrayBuffer();
        statuses.push(answer.status);
      }
      expect(statuses.filter((status) => status === 429)).toHaveLength(2);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      // Written at shutdown, on the store's write thread.
      const reopened = await openStore(config);
      const lastUsed = (await reopened.keys.getApiKey(record.id))?.last_used_at;
      await reopened.close();
      expect(Date.parse(lastUsed ?? '')).toBeGreaterThanOrEqual(before - 1_000);
      const usage = await runCli(['keys', 'usage', record.id, '--json'], { NERKH_DATA_DIR: dataDir });
      expect(JSON.parse(usage.stdout).usage).toEqual([
        { key_id: record.id, org: 'A', day: new Date().toISOString().slice(0, 10), admitted: 60, refused: 2 },
      ]);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});

describe('nerkh serve', () => {
  it('stops in one line naming the server when NERKH_DATABASE_URL does not answer, never its password', async () => {
    const result = await runCli(['serve'], {
      NERKH_DATA_DIR: dataDir,
      PORT: String(await freePort()),
      NERKH_DATABASE_URL: 'postgres://nerkh:s3cret@127.0.0.1:1/nerkh',
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^nerkh: PostgreSQL at 127\.0\.0\.1:1\/nerkh: connect ECONNREFUSED[^\n]*\n$/,
    );
    expect(result.stderr).not.toContain('s3cret');
  });

  it.skipIf(!redisRuns)(
    'reads its secrets from NAME_FILE: shares limits through Redis over TLS with a password',
    {
      timeout: 30_000,
    },
    async () => {
      const password = randomBytes(12).toString('hex');
      const redis = await startPrivateRedis({ password, tls: true });
      onTestFinished(() => redis.stop());
      // As compose and Kubernetes mount them: one file per secret, ending in a newline.
      const redisUrlFile = join(dataDir, 'redis_url');
      writeFileSync(redisUrlFile, `rediss://:${password}@127.0.0.1:${redis.tlsPort}\n`);
      const port = await freePort();
      const child = spawn(process.execPath, [binPath, 'serve', '--role', 'api'], {
        env: {
          ...process.env,
          PORT: String(port),
          NERKH_DATA_DIR: dataDir,
          NERKH_REDIS_URL_FILE: redisUrlFile,
          // The server's certificate is self-signed: the operator's CA, trusted as Node trusts any.
          NODE_EXTRA_CA_CERTS: redis.caFile ?? '',
          LOG_LEVEL: 'info',
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      onTestFinished(() => {
        if (child.exitCode === null) child.kill('SIGKILL');
      });
      let logs = '';
      await new Promise<void>((resolve, reject) => {
        child.stdout?.on('data', (chunk: Buffer) => {
          logs += chunk.toString();
          if (logs.includes('nerkh is running')) resolve();
        });
        child.once('exit', (code) => reject(new Error(`nerkh exited with code ${code} before it ran`)));
      });
      const health = (await (await fetch(`http://127.0.0.1:${port}/v1/health`)).json()) as {
        checks: Record<string, Array<{ observedValue: string; output: string }>>;
      };
      expect(health.checks['limiter:shared']?.[0]).toMatchObject({ observedValue: 'shared' });
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(logs).not.toContain(password);
    },
  );

  it('stops in one line naming the setting when a secret file cannot be read', async () => {
    const missing = join(dataDir, 'no-such-secret');
    const result = await runCli(['serve'], {
      NERKH_DATA_DIR: dataDir,
      PORT: String(await freePort()),
      NERKH_DATABASE_URL_FILE: missing,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `nerkh: invalid configuration: NERKH_DATABASE_URL_FILE cannot be read: ENOENT: no such file or directory, open '${missing}'\n`,
    );
  });

  it('stops before opening anything when the sources file has mistakes, naming the place of each', async () => {
    const file = join(dataDir, 'sources.yaml');
    writeFileSync(
      file,
      [
        'sources:',
        '  - { name: binance, kind: binanse, url: "wss://stream.binance.com:9443" }',
        '  - { name: nobitex, kind: nobitex, url: "https://apiv2.nobitex.ir", poll_seconds: 1 }',
        'routes:',
        '  default: { usdt: [binance] }',
        '',
      ].join('\n'),
    );
    const result = await runCli(['serve'], {
      NERKH_DATA_DIR: join(dataDir, 'data'),
      PORT: String(await freePort()),
      NERKH_SOURCES_FILE: file,
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      [
        `nerkh: sources file ${file} has 2 mistakes:`,
        `${file}:2:28: /sources/0/kind: must be one of "binance", "nobitex", "wallex", "json-http"`,
        `${file}:3:84: /sources/1/poll_seconds: must be >= 3`,
        '',
      ].join('\n'),
    );
    expect(existsSync(join(dataDir, 'data'))).toBe(false);
  });

  it('refuses an unknown role with a one-line reason', async () => {
    const result = await runCli(['serve', '--role', 'everything'], { NERKH_DATA_DIR: dataDir });
    expect(result.code).not.toBe(0);
    expect(result.stderr.split('\n')[0]).toMatch(/--role.*everything.*invalid/);
  });
});

describe('nerkh serve, stopping (docs/operations.md#shutdown)', () => {
  /** An API over a store holding a snapshot and a key, with its operations listener on a port of its own. */
  async function startApi(drainSeconds: number) {
    const config = loadConfig({ NERKH_DATA_DIR: dataDir });
    const store = await openStore(config);
    await store.snapshots.commitSnapshot(sampleSnapshot(new Date().toISOString()));
    const { key } = await issueApiKey(store.keys, { org: 'A', purpose: 'p', rateLimit: 100_000 });
    await store.close();
    const [port, metricsPort] = [await freePort(), await freePort()];
    const child = spawn(process.execPath, [binPath, 'serve', '--role', 'api'], {
      env: {
        ...process.env,
        PORT: String(port),
        NERKH_METRICS_PORT: String(metricsPort),
        NERKH_DATA_DIR: dataDir,
        NERKH_DRAIN_SECONDS: String(drainSeconds),
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    onTestFinished(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    let logs = '';
    await new Promise<void>((resolve, reject) => {
      child.stdout?.on('data', (chunk: Buffer) => {
        logs += chunk.toString();
        if (logs.includes('nerkh is running')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`nerkh exited with code ${code} before it ran`)));
    });
    const rates = () =>
      fetch(`http://127.0.0.1:${port}/v1/rates`, { headers: { 'x-api-key': key } }).then(
        async (response) => {
          await response.arrayBuffer();
          return { status: response.status, connection: response.headers.get('connection') };
        },
        () => null,
      );
    const readyz = () =>
      fetch(`http://127.0.0.1:${metricsPort}/readyz`).then(
        (response) => response.status,
        () => null,
      );
    return { child, port, exited, rates, readyz, logs: () => logs };
  }

  it('answers /readyz 503 at once on SIGTERM, keeps serving for the drain, then exits 0 within its bound', {
    timeout: 30_000,
  }, async () => {
    const drainSeconds = 2;
    const api = await startApi(drainSeconds);
    expect(await api.readyz()).toBe(200);
    expect((await api.rates())?.status).toBe(200);
    let exitedAt: number | null = null;
    void api.exited.then(() => {
      exitedAt = Date.now();
    });

    const signalled = Date.now();
    api.child.kill('SIGTERM');
    await waitFor(async () => (await api.readyz()) === 503, 2000, '/readyz 503');
    const notReadyMs = Date.now() - signalled;
    // Until the port closes, every request is answered, and told to close its connection.
    const answers: Array<{ status: number; connection: string | null }> = [];
    let lastServedMs = 0;
    while (exitedAt === null) {
      const answer = await api.rates();
      if (answer === null) break;
      answers.push(answer);
      lastServedMs = Date.now() - signalled;
    }
    expect(await api.exited).toBe(0);
    const exitMs = (exitedAt ?? Date.now()) - signalled;
    expect(answers.length).toBeGreaterThan(0);
    expect(new Set(answers.map((answer) => answer.status))).toEqual(new Set([200]));
    expect(new Set(answers.map((answer) => answer.connection))).toEqual(new Set(['close']));
    // Served past the readiness change, for the drain; stopped within the drain and the 15 s bound.
    expect(lastServedMs).toBeGreaterThan(notReadyMs);
    expect(exitMs).toBeLessThan((drainSeconds + 15) * 1000);
    expect(api.logs()).toContain('"msg":"draining: not ready, still serving"');
    process.stdout.write(
      `serve: SIGTERM → /readyz 503 after ${notReadyMs} ms; ${answers.length} requests on /v1/rates all 200 during the drain of ${drainSeconds} s, the last at ${lastServedMs} ms; exit 0 at ${exitMs} ms\n`,
    );
  });

  it('stops within its drain while clients hold connections that sent nothing or half a request', {
    timeout: 30_000,
  }, async () => {
    // node:http's close waits for such connections, with its header timeout no longer enforced:
    // they held a stop past its 15 s bound (exit 1) in CI.
    const api = await startApi(1);
    const held = await Promise.all(
      ['', 'GET /v1/rates HTTP/1.1\r\nHost: 127.0.0.1\r\n'].map(async (sent) => {
        const socket = connect(api.port, '127.0.0.1');
        onTestFinished(() => {
          socket.destroy();
        });
        // Ended with part of a request unread, the connection is reset (ECONNRESET here).
        socket.on('error', () => {});
        await once(socket, 'connect');
        if (sent !== '') socket.write(sent);
        socket.resume();
        // In an object: an async function would wait for a promise it returns.
        return { closed: new Promise((resolve) => socket.once('close', resolve)) };
      }),
    );
    const signalled = Date.now();
    api.child.kill('SIGTERM');
    expect(await api.exited).toBe(0);
    const exitMs = Date.now() - signalled;
    await Promise.all(held.map((connection) => connection.closed));
    // The drain (1 s) and the stop, not the 15 s bound.
    expect(exitMs).toBeLessThan(6000);
    expect(api.logs()).not.toContain('did not finish in time');
  });

  it('ends the drain at a second signal and still stops cleanly', { timeout: 30_000 }, async () => {
    const api = await startApi(600);
    api.child.kill('SIGTERM');
    await waitFor(async () => (await api.readyz()) === 503, 2000, '/readyz 503');
    expect((await api.rates())?.status).toBe(200);
    api.child.kill('SIGINT');
    expect(await api.exited).toBe(0);
    expect(api.logs()).toContain('"msg":"second signal: ending the drain now"');
  });
});
