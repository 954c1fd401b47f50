import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqlite, type SqliteDatabase } from '../../../src/store/sqlite/database.ts';
import { SqliteStatementThread } from '../../../src/store/sqlite/statement-thread.ts';

describe('SqliteStatementThread', () => {
  let dataDir: string;
  let file: string;
  let db: SqliteDatabase;
  const threads: SqliteStatementThread[] = [];
  const openThread = (sql: string) => {
    const thread = new SqliteStatementThread(file, [sql]);
    threads.push(thread);
    return thread;
  };
  const values = () => db.prepare('SELECT v FROM t ORDER BY v').pluck().all();

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'nerkh-thread-'));
    file = join(dataDir, 'nerkh.db');
    db = openSqlite(file);
    db.exec('CREATE TABLE t (v INTEGER NOT NULL CHECK (v > 0))');
  });
  afterEach(async () => {
    for (const thread of threads.splice(0)) await thread.close();
    db.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('commits a batch, seen at once by another connection', async () => {
    const thread = openThread('INSERT INTO t (v) VALUES (?)');
    await thread.run([[[1], [2], [3]]]);
    expect(values()).toEqual([1, 2, 3]);
  });

  it("fails a batch with SQLite's own message and writes none of it; the next batch is written", async () => {
    const thread = openThread('INSERT INTO t (v) VALUES (?)');
    await expect(thread.run([[[1], [-1]]])).rejects.toThrow(/CHECK constraint failed/);
    expect(values()).toEqual([]);
    await thread.run([[[2]]]);
    expect(values()).toEqual([2]);
  });

  it("runs each statement over its own rows in one transaction: one statement's failure writes none", async () => {
    db.exec('CREATE TABLE u (w INTEGER NOT NULL CHECK (w > 0))');
    const thread = new SqliteStatementThread(file, [
      'INSERT INTO t (v) VALUES (?)',
      'INSERT INTO u (w) VALUES (?)',
    ]);
    threads.push(thread);
    await expect(thread.run([[[1]], [[-1]]])).rejects.toThrow(/CHECK constraint failed/);
    expect(values()).toEqual([]);
    await thread.run([[[2]], [[3], [4]]]);
    expect(values()).toEqual([2]);
    expect(db.prepare('SELECT w FROM u ORDER BY w').pluck().all()).toEqual([3, 4]);
  });

  it("fails every batch with SQLite's message when the statement cannot be prepared", async () => {
    const thread = openThread('INSERT INTO missing (v) VALUES (?)');
    await expect(thread.run([[[1]]])).rejects.toThrow(/no such table: missing/);
    await expect(thread.run([[[2]]])).rejects.toThrow(/no such table: missing/);
  });

  it('commits the batches under way before it closes', async () => {
    const thread = openThread('INSERT INTO t (v) VALUES (?)');
    const batches = [thread.run([[[1]]]), thread.run([[[2]]]), thread.run([[[3]]])];
    await thread.close();
    await Promise.all(batches);
    expect(values()).toEqual([1, 2, 3]);
  });
});
