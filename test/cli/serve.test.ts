import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { issueApiKey } from '../../src/keys/issue-key.ts';
import { openStore } from '../../src/store/open-store.ts';
import { sampleSnapshot } from '../http/fixtures.ts';
import { binPath, freePort, runCli } from './run-cli.ts';

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'nerkh-cli-serve-'));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

describe('nerkh serve', () => {
  it('--role api serves what is in the store (no collector), and exits 0 on SIGTERM', {
    timeout: 30_000,
  }, async () => {
    const store = await openStore(loadConfig({ NERKH_DATA_DIR: dataDir }));
    await store.snapshots.commitSnapshot(sampleSnapshot(new Date().toISOString()));
    const { key } = await issueApiKey(store.keys, { org: 'A', purpose: 'p' });
    await store.close();

    const port = await freePort();
    const child = spawn(process.execPath, [binPath, 'serve', '--role', 'api'], {
      env: { ...process.env, PORT: String(port), NERKH_DATA_DIR: dataDir, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      await new Promise<void>((resolve) => {
        let logs = '';
        child.stdout?.on('data', (chunk: Buffer) => {
          logs += chunk.toString();
          if (logs.includes('nerkh is running')) resolve();
        });
      });
      const response = await fetch(`http://127.0.0.1:${port}/v1/rates?symbol=usdt`, {
        headers: { 'x-api-key': key },
      });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { rates: Array<{ symbol: string }> };
      expect(body.rates[0]?.symbol).toBe('USDT');
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });

  it.each([
    ['NERKH_DATABASE_URL', 'postgres://nerkh@db.example/nerkh', 'no PostgreSQL store yet'],
    ['NERKH_REDIS_URL', 'redis://cache.example:6379', 'no Redis limiter yet'],
  ])(
    'refuses to start with %s set (a backend this build lacks), in one line naming it',
    async (name, url, lack) => {
      const result = await runCli(['serve'], {
        NERKH_DATA_DIR: dataDir,
        PORT: String(await freePort()),
        [name]: url,
      });
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(
        new RegExp(`^nerkh: ${name} is set, but this build of nerkh has ${lack}; unset it [^\n]+\n$`),
      );
    },
  );

  it('refuses an unknown role with a one-line reason', async () => {
    const result = await runCli(['serve', '--role', 'everything'], { NERKH_DATA_DIR: dataDir });
    expect(result.code).not.toBe(0);
    expect(result.stderr.split('\n')[0]).toMatch(/--role.*everything.*invalid/);
  });
});
