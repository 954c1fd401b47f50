import pg from 'pg';
import { describe, expect, it, onTestFinished } from 'vitest';
import { issueApiKey } from '../../../src/keys/issue-key.ts';
import { createLogger } from '../../../src/logger.ts';
import { PostgresChangeFeed } from '../../../src/store/postgres/change-feed.ts';
import { openPostgresStore } from '../../../src/store/postgres/open-postgres-store.ts';
import type { StoreChange } from '../../../src/store/types.ts';
import { createTestDatabase, skipPostgres } from '../../support/postgres.ts';
import { TcpProxy } from '../../support/tcp-proxy.ts';
import { LogCapture } from '../../support/test-app.ts';
import { sleep, waitFor } from '../../support/wait.ts';
import { draftAt } from '../snapshot-store-contract.ts';

/** The writing instance: a store on its own pool, closed when the test ends. */
async function writerOn(url: string) {
  const store = await openPostgresStore({
    NERKH_DATABASE_URL: url,
    NERKH_DATABASE_POOL_SIZE: 2,
    NERKH_SNAPSHOT_RETENTION: 100,
  });
  onTestFinished(() => store.close());
  return store;
}

/** A listening instance's feed, counting what it heard of each kind; closed when the test ends. */
async function listenerOn(url: string, options: { logs?: LogCapture; heartbeatMs?: number } = {}) {
  const feed = new PostgresChangeFeed({
    url,
    logger: createLogger('info', options.logs ?? new LogCapture()),
    retryMs: 100,
    ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
  });
  onTestFinished(() => feed.close());
  const heard: Record<StoreChange, number[]> = { snapshot: [], keys: [] };
  feed.onChange('snapshot', () => heard.snapshot.push(performance.now()));
  feed.onChange('keys', () => heard.keys.push(performance.now()));
  await feed.start();
  return { feed, heard };
}

describe.skipIf(skipPostgres)('PostgresChangeFeed', () => {
  it('hears a snapshot committed and a key issued or revoked by another instance within a second', async () => {
    const url = await createTestDatabase();
    const writer = await writerOn(url);
    const { heard } = await listenerOn(url);

    const committing = performance.now();
    await writer.snapshots.commitSnapshot(draftAt(0));
    await waitFor(() => heard.snapshot.length === 1, 1000, 'the commit to be heard of');
    expect((heard.snapshot[0] as number) - committing).toBeLessThan(1000);

    const { record } = await issueApiKey(writer.keys, { org: 'A', purpose: 'p' });
    await waitFor(() => heard.keys.length === 1, 1000, 'the new key to be heard of');
    const revoking = performance.now();
    await writer.keys.revokeApiKey(record.id);
    await waitFor(() => heard.keys.length === 2, 1000, 'the revocation to be heard of');
    expect((heard.keys[1] as number) - revoking).toBeLessThan(1000);

    // Last-use times are not a change of the keys: no cache needs dropping for them.
    await writer.keys.recordApiKeyUse(new Map([[record.id, new Date().toISOString()]]));
    await sleep(300);
    expect(heard).toMatchObject({
      snapshot: [expect.any(Number)],
      keys: [expect.any(Number), expect.any(Number)],
    });
  });

  it('hears nothing of a change rolled back', async () => {
    const url = await createTestDatabase();
    await writerOn(url);
    const { heard } = await listenerOn(url);
    const client = new pg.Client({ connectionString: url });
    onTestFinished(() => client.end());
    await client.connect();
    await client.query('BEGIN');
    await client.query(
      `INSERT INTO snapshots (updated_at, source, rates) VALUES (now(), 'binance+nobitex', '[]')`,
    );
    await client.query(`INSERT INTO api_keys (id, prefix, hash, org, purpose, created_at)
                        VALUES ('k1', 'p', 'h', 'o', 'p', now())`);
    await client.query('ROLLBACK');
    await sleep(300);
    expect(heard).toEqual({ snapshot: [], keys: [] });
  });

  it('listens again once its connection is back, reports every kind then, and logs the loss and the return once', async () => {
    const url = await createTestDatabase();
    const writer = await writerOn(url);
    const proxy = await TcpProxy.start(Number(new URL(url).port || 5432));
    onTestFinished(() => proxy.close());
    const proxied = new URL(url);
    proxied.port = String(proxy.port);
    const logs = new LogCapture();
    const { heard } = await listenerOn(proxied.toString(), { logs });

    proxy.cut();
    await waitFor(() => logs.text.includes('not listening'), 2000, 'the loss to be logged');
    // Committed while nobody listened: only the re-read after the return can catch it.
    await writer.snapshots.commitSnapshot(draftAt(0));
    await sleep(300);
    expect(heard).toEqual({ snapshot: [], keys: [] });

    proxy.restore();
    await waitFor(() => heard.snapshot.length === 1 && heard.keys.length === 1, 3000, 'the re-read');
    await writer.snapshots.commitSnapshot(draftAt(1));
    await waitFor(() => heard.snapshot.length === 2, 1000, 'a commit after the return');
    expect(logs.lines.filter((line) => line.includes('not listening'))).toHaveLength(1);
    expect(logs.lines.filter((line) => line.includes('listening again'))).toHaveLength(1);
  });

  it('notices a connection that went silent without closing, and listens again once it answers', async () => {
    const url = await createTestDatabase();
    const writer = await writerOn(url);
    const proxy = await TcpProxy.start(Number(new URL(url).port || 5432));
    onTestFinished(() => proxy.close());
    const proxied = new URL(url);
    proxied.port = String(proxy.port);
    const logs = new LogCapture();
    const { heard } = await listenerOn(proxied.toString(), { logs, heartbeatMs: 200 });

    proxy.stall();
    // The heartbeat's read times out (5 s): the connection is given up and opened again.
    await waitFor(() => logs.text.includes('not listening'), 8000, 'the silence to be noticed');
    proxy.restore();
    await waitFor(() => heard.snapshot.length === 1, 8000, 'the re-read after the return');
    await writer.snapshots.commitSnapshot(draftAt(0));
    await waitFor(() => heard.snapshot.length === 2, 1000, 'a commit after the return');
  }, 30_000);
});
