import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it, onTestFinished } from 'vitest';
import { NerkhProcess } from '../../drills/support/nerkh-process.ts';
import { simulatorEnv, startSimulator, waitForRates } from '../../drills/support/rig.ts';
import { loadConfig } from '../../src/config.ts';
import { issueApiKey } from '../../src/keys/issue-key.ts';
import { openStore } from '../../src/store/open-store.ts';
import { testTeardown } from '../support/drill-test.ts';
import { runCli } from '../support/run-cli.ts';

/** A temporary directory of the test's own, removed when the test finishes. */
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'nerkh-cli-backup-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function startedProcess(nerkh: NerkhProcess): NerkhProcess {
  onTestFinished(async () => {
    await nerkh.stop();
  });
  return nerkh;
}

async function issueKey(dataDir: string, org: string): Promise<string> {
  const issued = await runCli(['keys', 'issue', '--org', org, '--purpose', 'backup test', '--json'], {
    NERKH_DATA_DIR: dataDir,
  });
  expect(issued).toMatchObject({ code: 0, stderr: '' });
  return (JSON.parse(issued.stdout) as { key: string }).key;
}

const ratesStatus = (url: string, key: string) =>
  fetch(`${url}/v1/rates`, { headers: { 'X-API-Key': key } }).then(async (response) => {
    await response.arrayBuffer();
    return response.status;
  });

describe('nerkh backup and nerkh restore', () => {
  it('back up a store while nerkh serves and collects on it; a service on the restored store accepts the key issued before', {
    timeout: 90_000,
  }, async () => {
    const root = tempDir();
    const dataDir = join(root, 'data');
    const sim = await startSimulator(testTeardown);
    // A snapshot a second: the collector writes to the store while the backup reads it.
    const serving = startedProcess(
      await NerkhProcess.start({
        role: 'all',
        env: { ...simulatorEnv(sim), NERKH_DATA_DIR: dataDir, NERKH_REFRESH_SECONDS: '1' },
      }),
    );
    const key = await issueKey(dataDir, 'Before the backup');
    await waitForRates(serving.url, key);

    const file = join(root, 'nerkh-backup.db');
    const backup = await runCli(['backup', file], { NERKH_DATA_DIR: dataDir });
    process.stdout.write(`$ nerkh backup ${file}\n${backup.stdout}`);
    expect(backup).toMatchObject({ code: 0, stderr: '' });
    expect(backup.stdout).toMatch(
      new RegExp(
        `^Backed up ${join(dataDir, 'nerkh.db')} to ${file}: 1 key, \\d+ snapshots?, schema version \\d+, [\\d.]+ MB; integrity_check ok\\.\\n$`,
      ),
    );
    // One self-contained file: no -wal beside it holds part of the copy.
    expect(existsSync(`${file}-wal`)).toBe(false);
    expect(await ratesStatus(serving.url, key)).toBe(200);
    const later = await issueKey(dataDir, 'After the backup');
    expect(await serving.stop()).toBe(0);

    const restoredDir = join(root, 'restored');
    const restore = await runCli(['restore', file], { NERKH_DATA_DIR: restoredDir });
    process.stdout.write(`$ nerkh restore ${file}\n${restore.stdout}`);
    expect(restore).toMatchObject({ code: 0, stderr: '' });
    expect(restore.stdout).toMatch(
      new RegExp(
        `^Restored ${file} to ${join(restoredDir, 'nerkh.db')}: 1 key, \\d+ snapshots?, schema version \\d+, [\\d.]+ MB\\.\\nStart nerkh with NERKH_DATA_DIR=${restoredDir}; `,
      ),
    );

    const restored = startedProcess(
      await NerkhProcess.start({ role: 'api', env: { NERKH_DATA_DIR: restoredDir } }),
    );
    expect(await ratesStatus(restored.url, key)).toBe(200);
    // The key issued after the backup is not in it: the service runs on the copy, not the original.
    expect(await ratesStatus(restored.url, later)).toBe(403);
  });

  it('refuses to replace an existing file unless --force, and then replaces it', async () => {
    const root = tempDir();
    const dataDir = join(root, 'data');
    const store = await openStore(loadConfig({ NERKH_DATA_DIR: dataDir }));
    await issueApiKey(store.keys, { org: 'Acme', purpose: 'backup test' });
    await store.close();
    const file = join(root, 'existing.db');
    writeFileSync(file, 'an earlier backup');

    const refused = await runCli(['backup', file], { NERKH_DATA_DIR: dataDir });
    expect(refused).toEqual({
      code: 1,
      stdout: '',
      stderr: `nerkh: ${file} already exists: pass --force to replace it\n`,
    });
    expect(readFileSync(file, 'utf8')).toBe('an earlier backup');

    const forced = await runCli(['backup', file, '--force'], { NERKH_DATA_DIR: dataDir });
    expect(forced).toMatchObject({ code: 0, stderr: '' });
    expect(forced.stdout).toContain(': 1 key, 0 snapshots,');
  });

  it('prints its progress while it copies a store larger than one step (10 MiB)', async () => {
    const root = tempDir();
    const dataDir = join(root, 'data');
    const store = await openStore(loadConfig({ NERKH_DATA_DIR: dataDir }));
    await store.close();
    const db = new Database(join(dataDir, 'nerkh.db'));
    db.exec('CREATE TABLE padding (bytes BLOB)');
    const insert = db.prepare('INSERT INTO padding VALUES (randomblob(1048576))');
    for (let mib = 0; mib < 24; mib++) insert.run();
    db.close();

    const file = join(root, 'large.db');
    const backup = await runCli(['backup', file], { NERKH_DATA_DIR: dataDir });
    expect(backup.code).toBe(0);
    const lines = backup.stdout.trim().split('\n');
    const progress = lines.slice(0, -1);
    expect(progress).toEqual([
      expect.stringMatching(/^Copied 2560 of \d+ pages \(\d+ %\)…$/),
      expect.stringMatching(/^Copied 5120 of \d+ pages \(\d+ %\)…$/),
    ]);
    expect(lines.at(-1)).toMatch(/^Backed up .*: 0 keys, 0 snapshots, schema version \d+, 2\d\.\d MB; /);
  });

  it('says there is no store when NERKH_DATA_DIR holds none, and writes nothing', async () => {
    const root = tempDir();
    const file = join(root, 'backup.db');
    const result = await runCli(['backup', file], { NERKH_DATA_DIR: join(root, 'empty') });
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: `nerkh: no SQLite store at ${join(root, 'empty', 'nerkh.db')}: is NERKH_DATA_DIR right?\n`,
    });
    expect(existsSync(file)).toBe(false);
  });

  it('points to pg_dump when the store is PostgreSQL', async () => {
    const root = tempDir();
    const result = await runCli(['backup', join(root, 'backup.db')], {
      NERKH_DATABASE_URL: 'postgres://nerkh@127.0.0.1:1/nerkh',
    });
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'nerkh: NERKH_DATABASE_URL is set: nerkh backup copies the SQLite store of NERKH_DATA_DIR; for PostgreSQL use pg_dump as docs/operations.md#backups shows\n',
    });
  });

  it('explains itself in --help', async () => {
    const help = await runCli(['backup', '--help'], {});
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: nerkh backup [options] <file>');
    expect(help.stdout).toContain('--force');
    expect(help.stdout).toContain('pg_dump');
  });
});
