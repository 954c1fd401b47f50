import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqlite } from '../../../src/store/sqlite/database.ts';
import { SqliteSnapshotStore } from '../../../src/store/sqlite/snapshot-store.ts';
import { crashDraft, seqOf } from '../../support/crash-draft.ts';
import { buildTestApp } from '../../support/test-app.ts';

const writer = fileURLToPath(new URL('../../support/crash-writer.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'nerkh-crash-'));
const file = join(dir, 'nerkh.db');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Round {
  child: ChildProcess;
  /** Ids the writer acknowledged as committed, in order. */
  acked: number[];
  exited: Promise<NodeJS.Signals | null>;
}

function startWriter(): Round {
  const child = spawn(process.execPath, ['--import', 'tsx', writer, file], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const acked: number[] = [];
  let buffer = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    const lines = buffer.split('\n');
    buffer = lines.pop() ?? '';
    for (const line of lines) acked.push(Number(line.split(' ')[0]));
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve, reject) => {
    child.on('exit', (code, signal) => {
      if (signal === null) reject(new Error(`writer exited with code ${code} before the kill: ${stderr}`));
      else resolve(signal);
    });
  });
  return { child, acked, exited };
}

async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for the writer');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('kill -9 during snapshot commits', () => {
  it('never loses an acknowledged snapshot, never leaves a torn one, keeps the file intact, and serves the last commit after restart', async () => {
    let previousLatest = 0;
    for (let round = 0; round < 5; round++) {
      const { child, acked, exited } = startWriter();
      await until(() => acked.length > 0, 15_000);
      // A random moment mid-run: some commits in, very likely one half-written when the kill lands.
      await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 150));
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');
      const lastAcked = acked.at(-1) ?? 0;

      const db = openSqlite(file);
      try {
        expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
        const store = new SqliteSnapshotStore(db, 40);
        const latest = await store.latestSnapshot();
        expect(latest).not.toBeNull();
        if (!latest) return;
        expect(latest.id).toBeGreaterThanOrEqual(lastAcked);
        expect(latest.id).toBeGreaterThan(previousLatest);
        expect(latest).toEqual({ id: latest.id, ...crashDraft(seqOf(latest.updated_at)) });

        const rows = db
          .prepare('SELECT id, updated_at, usdt_irt, rates FROM snapshots ORDER BY id')
          .all() as {
          id: number;
          updated_at: string;
          usdt_irt: number;
          rates: string;
        }[];
        for (const [index, row] of rows.entries()) {
          if (index > 0) expect(row.id).toBe((rows[index - 1]?.id ?? 0) + 1);
          const expected = crashDraft(seqOf(row.updated_at));
          expect({ usdt_irt: row.usdt_irt, rates: JSON.parse(row.rates) }).toEqual({
            usdt_irt: expected.usdt_irt,
            rates: expected.rates,
          });
        }
        expect(rows.at(-1)?.id).toBe(latest.id);
        previousLatest = latest.id;

        // After the restart, the API serves exactly that last committed snapshot.
        const t = await buildTestApp({ deps: { snapshots: store, collectorStatus: store } });
        try {
          const served = await t.app.inject({ url: '/v1/rates', headers: { 'x-api-key': t.key } });
          expect(served.statusCode).toBe(200);
          expect(served.json()).toMatchObject({
            updated_at: latest.updated_at,
            usdt_irt: latest.usdt_irt,
            count: latest.rates.length,
            rates: latest.rates,
          });
        } finally {
          await t.app.close();
        }
      } finally {
        db.close();
      }
    }
  }, 60_000);
});
