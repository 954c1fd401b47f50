import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it, onTestFinished } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { issueApiKey } from '../../src/keys/issue-key.ts';
import { openStore } from '../../src/store/open-store.ts';
import { backupStore } from '../../src/store/sqlite/backup.ts';
import { runCli } from '../support/run-cli.ts';

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'nerkh-cli-restore-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A backup of a store with one key, as `nerkh backup` makes it (made in-process: it is not under test here). */
async function backupWithOneKey(root: string): Promise<string> {
  const dataDir = join(root, 'source');
  const store = await openStore(loadConfig({ NERKH_DATA_DIR: dataDir }));
  await issueApiKey(store.keys, { org: 'Acme', purpose: 'restore test' });
  await store.close();
  const file = join(root, 'backup.db');
  await backupStore(dataDir, file, { force: false, onProgress: () => {} });
  return file;
}

const restore = (file: string, dataDir: string) => runCli(['restore', file], { NERKH_DATA_DIR: dataDir });

describe('nerkh restore', () => {
  it('restores into an empty directory that exists, and the key is listed there', async () => {
    const root = tempDir();
    const file = await backupWithOneKey(root);
    const dataDir = join(root, 'empty');
    mkdirSync(dataDir);

    const result = await restore(file, dataDir);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(readdirSync(dataDir)).toEqual(['nerkh.db']);
    const listed = await runCli(['keys', 'list', '--json'], { NERKH_DATA_DIR: dataDir });
    expect(JSON.parse(listed.stdout).keys).toEqual([
      expect.objectContaining({ org: 'Acme', status: 'active' }),
    ]);
  });

  it('refuses a data directory that is not empty, and leaves it as it was', async () => {
    const root = tempDir();
    const file = await backupWithOneKey(root);
    const dataDir = join(root, 'in-use');
    mkdirSync(dataDir);
    writeFileSync(join(dataDir, 'nerkh.db'), 'the store in use');

    const result = await restore(file, dataDir);
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: `nerkh: NERKH_DATA_DIR ${dataDir} is not empty (nerkh.db): restore writes only into an empty data directory; stop nerkh and move it aside first\n`,
    });
    expect(readdirSync(dataDir)).toEqual(['nerkh.db']);
  });

  // Each is refused before anything is written: the data directory is not even created.
  it.each([
    [
      'a file that is not SQLite',
      (file: string) => writeFileSync(file, 'not a database, just text'),
      /is not a SQLite database: file is not a database$/,
    ],
    [
      'a SQLite database that is not a nerkh store',
      (file: string) => {
        rmSync(file);
        const db = new Database(file);
        db.exec('CREATE TABLE notes (text TEXT)');
        db.close();
      },
      /is not a nerkh store: no schema version$/,
    ],
    [
      'a store from a newer release',
      (file: string) => {
        const db = new Database(file);
        db.pragma('user_version = 999');
        db.close();
      },
      /is at schema version 999, newer than this release knows \(\d+\): restore it with the release that made it, or a later one$/,
    ],
    [
      'a store whose pages are damaged',
      (file: string) => {
        const db = new Database(file);
        const pageSize = db.pragma('page_size', { simple: true }) as number;
        const page = db
          .prepare("SELECT rootpage FROM sqlite_schema WHERE name = 'sqlite_autoindex_api_keys_2'")
          .pluck()
          .get() as number;
        db.close();
        // The index of the keys' hashes, overwritten in place with bytes no b-tree page has.
        const fd = openSync(file, 'r+');
        writeSync(fd, Buffer.alloc(pageSize, 0xff), 0, pageSize, (page - 1) * pageSize);
        closeSync(fd);
      },
      /fails SQLite's integrity_check: database disk image is malformed$/,
    ],
  ])('refuses %s', async (_, make, reason) => {
    const root = tempDir();
    const file = await backupWithOneKey(root);
    make(file);
    const dataDir = join(root, 'new');

    const result = await restore(file, dataDir);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.startsWith(`nerkh: ${file} `)).toBe(true);
    expect(result.stderr.trimEnd()).toMatch(reason);
    expect(existsSync(dataDir)).toBe(false);
  });

  it('says so when the file does not exist', async () => {
    const root = tempDir();
    const result = await restore(join(root, 'missing.db'), join(root, 'new'));
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: `nerkh: ${join(root, 'missing.db')} does not exist\n`,
    });
  });

  it('explains itself in --help', async () => {
    const help = await runCli(['restore', '--help'], {});
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: nerkh restore [options] <file>');
    expect(help.stdout).toMatch(/must\s+be empty/);
    expect(help.stdout).toContain('pg_restore');
  });
});
