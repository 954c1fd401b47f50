import { describe, expect, it, onTestFinished } from 'vitest';
import { CollectorElection } from '../../src/leadership/collector-election.ts';
import { createLogger } from '../../src/logger.ts';
import { openPostgresStore } from '../../src/store/postgres/open-postgres-store.ts';
import type { CollectorLease } from '../../src/store/types.ts';
import { createTestDatabase, skipPostgres } from '../support/postgres.ts';
import { LogCapture } from '../support/test-app.ts';
import { sleep, waitFor } from '../support/wait.ts';

interface Term {
  term: number;
  startedMs: number;
  stoppedMs: number | null;
}

const ttlMs = 1000;
const renewMs = 100;

/**
 * One instance on the shared database: its own pool, an election over the real lease (which the
 * test can cut off from the database), and the terms it led. Stopped when the test ends.
 */
async function instanceOn(
  url: string,
  name: string,
  options: { failToStart?: boolean; releaseDelayMs?: number } = {},
) {
  const store = await openPostgresStore({
    NERKH_DATABASE_URL: url,
    NERKH_DATABASE_POOL_SIZE: 2,
    NERKH_SNAPSHOT_RETENTION: 10,
  });
  onTestFinished(() => store.close());
  const lease = store.collectorLease as CollectorLease;
  /** How the database looks once cut off: refusing (a reset connection) or silent (a dropped network). */
  let cut: 'refused' | 'silent' | null = null;
  const unreachable = () =>
    cut === 'refused' ? Promise.reject(new Error('connection terminated')) : new Promise<never>(() => {});
  const reachable: CollectorLease = {
    claim: (...args) => (cut === null ? lease.claim(...args) : unreachable()),
    release: async (...args) => {
      if (options.releaseDelayMs !== undefined) await sleep(options.releaseDelayMs);
      return cut === null ? lease.release(...args) : unreachable();
    },
    leader: () => lease.leader(),
    storeFor: (term) => lease.storeFor(term),
  };
  const terms: Term[] = [];
  const logs = new LogCapture();
  const election = new CollectorElection({
    lease: reachable,
    instance: name,
    ttlMs,
    renewMs,
    logger: createLogger('info', logs),
    lead: async (term, signal) => {
      if (options.failToStart) throw new Error('the sources refused the configuration');
      const led: Term = { term, startedMs: Date.now(), stoppedMs: null };
      terms.push(led);
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      led.stoppedMs = Date.now();
    },
  });
  onTestFinished(() => election.stop());
  return {
    election,
    terms,
    logs,
    lease,
    leading: () => terms.some((led) => led.stoppedMs === null),
    cutOff: (how: 'refused' | 'silent') => {
      cut = how;
    },
  };
}

describe.skipIf(skipPostgres)('CollectorElection on a PostgreSQL lease', () => {
  it('lets exactly one of two instances lead, and the other take over under the next term when it stops', async () => {
    const url = await createTestDatabase();
    const a = await instanceOn(url, 'a:1');
    const b = await instanceOn(url, 'b:2');
    await a.election.start();
    await b.election.start();
    await sleep(5 * renewMs);
    expect(a.terms).toEqual([{ term: 1, startedMs: expect.any(Number), stoppedMs: null }]);
    expect(b.terms).toEqual([]);
    expect(await a.lease.leader()).toMatchObject({ instance: 'a:1', term: 1, live: true });

    const stopping = Date.now();
    await a.election.stop();
    expect(a.leading()).toBe(false);
    // Released, not left to run out: the standby leads at its next claim. Left to run out, the
    // lease would last until at least `ttlMs - renewMs` after the stop (its last renewal).
    await waitFor(() => b.leading(), ttlMs - 2 * renewMs, 'the standby to lead');
    expect(Date.now() - stopping).toBeLessThan(ttlMs - renewMs);
    expect(b.terms).toMatchObject([{ term: 2 }]);
    expect(a.logs.text).toContain('collector lease released');
    expect(
      b.logs.lines.filter((line) => line.includes('instance a:1 leads; this instance stands by')),
    ).toHaveLength(1);
    expect(b.logs.text).toContain('this instance leads the collector');
  });

  it.each([
    ['refuses its claims', 'refused'],
    ['leaves its claims unanswered', 'silent'],
  ] as const)(
    'a leader whose database %s stops before its lease runs out, and a standby leads once it has',
    async (_how, how) => {
      const url = await createTestDatabase();
      const a = await instanceOn(url, 'a:1');
      const b = await instanceOn(url, 'b:2');
      await a.election.start();
      await b.election.start();
      expect(a.leading()).toBe(true);

      const cutAt = Date.now();
      a.cutOff(how);
      await waitFor(() => b.leading(), ttlMs + 5 * renewMs, 'the standby to lead');
      const [led] = a.terms;
      const [successor] = b.terms;
      // Never two leaders: the cut-off one stopped before the standby started.
      expect(led?.stoppedMs).not.toBeNull();
      expect(led?.stoppedMs as number).toBeLessThanOrEqual(successor?.startedMs as number);
      expect((led?.stoppedMs as number) - cutAt).toBeLessThanOrEqual(ttlMs + renewMs);
      expect(successor?.term).toBe(2);
      // A refusal is logged once, however many claims fail; a claim left hanging has nothing to say yet.
      expect(a.logs.lines.filter((line) => line.includes('cannot reach the store'))).toHaveLength(
        how === 'refused' ? 1 : 0,
      );
      expect(a.logs.text).toContain('this instance stops leading the collector');
    },
  );

  it('gives the lease up when its collector cannot start, and stands aside so another instance leads', async () => {
    const url = await createTestDatabase();
    // A release slower than the gap between the two instances' claims: were the failing instance
    // to claim again at once, it would take the lease back each round, before the other's claim.
    const a = await instanceOn(url, 'a:1', { failToStart: true, releaseDelayMs: renewMs / 2 });
    const b = await instanceOn(url, 'b:2');
    await a.election.start();
    await b.election.start();
    // Before the failing instance's stand-aside (one lease term) ends.
    await waitFor(() => b.leading(), ttlMs - 2 * renewMs, 'the other instance to lead');
    expect(a.logs.text).toContain('collector failed to start; giving the lease up and standing aside');
    expect(await b.lease.leader()).toMatchObject({ instance: 'b:2', live: true });
    expect(a.logs.lines.filter((line) => line.includes('collector failed to start'))).toHaveLength(1);
  });

  it('alone, tries its collector again once it has stood aside for a lease term', async () => {
    const url = await createTestDatabase();
    const a = await instanceOn(url, 'a:1', { failToStart: true });
    const startedMs = Date.now();
    await a.election.start();
    const failures = () => a.logs.lines.filter((line) => line.includes('collector failed to start')).length;
    await waitFor(() => failures() === 1, 5 * renewMs, 'the first failure');
    await sleep(ttlMs / 2);
    expect(failures()).toBe(1);
    await waitFor(() => failures() === 2, ttlMs + 5 * renewMs, 'the second try');
    expect(Date.now() - startedMs).toBeGreaterThanOrEqual(ttlMs);
    await waitFor(
      async () => (await a.lease.leader())?.live === false,
      5 * renewMs,
      'the lease given up again',
    );
  });
});
