import { describe, expect, it } from 'vitest';
import { currentHealth } from '../../../src/http/health/current-health.ts';
import { MemorySnapshotStore } from '../../../src/store/memory/snapshot-store.ts';
import { FakeClock, healthyCollector, sampleSnapshot } from '../../support/test-app.ts';

describe('currentHealth', () => {
  it('judges the served snapshot and the collector report, reading the report at most once a second', async () => {
    const clock = new FakeClock();
    const store = new MemorySnapshotStore();
    let reads = 0;
    const collectorStatus = {
      getCollectorStatus: () => {
        reads++;
        return store.getCollectorStatus();
      },
    };
    const snapshot = { id: 1, ...sampleSnapshot() };
    const health = currentHealth({
      collectorStatus,
      currentSnapshot: () => snapshot,
      clock: clock.now,
      refreshSeconds: 600,
      releaseId: '1.2.3',
    });

    const unreported = await health();
    expect(unreported.body).toMatchObject({ status: 'warn', releaseId: '1.2.3', count: 4, age_seconds: 60 });
    expect(unreported.body.checks['collector:report']?.[0]?.status).toBe('warn');

    await store.putCollectorStatus(healthyCollector(clock.nowMs));
    clock.advance(999);
    expect((await Promise.all([health(), health(), health()])).map((report) => report.body.status)).toEqual([
      'warn',
      'warn',
      'warn',
    ]);
    expect(reads).toBe(1);

    clock.advance(1);
    const reported = await health();
    expect(reported.body.status).toBe('pass');
    expect(reported.httpStatus).toBe(200);
    expect(reads).toBe(2);
  });

  it('fails before the first snapshot', async () => {
    const store = new MemorySnapshotStore();
    const health = currentHealth({
      collectorStatus: store,
      currentSnapshot: () => null,
      clock: Date.now,
      refreshSeconds: 600,
      releaseId: '1.2.3',
    });
    const report = await health();
    expect(report.httpStatus).toBe(503);
    expect(report.body).toMatchObject({ status: 'fail', count: null, updated_at: null });
  });

  it('reads which instance leads with the collector report, at most once a second', async () => {
    const clock = new FakeClock();
    const store = new MemorySnapshotStore();
    await store.putCollectorStatus(healthyCollector(clock.nowMs));
    const leader = {
      instance: 'collector-b:77',
      term: 3,
      since: '2025-01-01T11:30:00.000Z',
      expiresAt: '2025-01-01T12:01:15.000Z',
      live: true,
    };
    let leaseReads = 0;
    const health = currentHealth({
      collectorStatus: store,
      collectorLease: {
        leader: async () => {
          leaseReads++;
          return leader;
        },
      },
      sharedLimits: () => undefined,
      currentSnapshot: () => ({ id: 1, ...sampleSnapshot() }),
      clock: clock.now,
      refreshSeconds: 600,
      releaseId: '1.2.3',
    });
    await health();
    clock.advance(999);
    const report = await health();
    expect(report.body.status).toBe('pass');
    expect(report.body.checks['collector:leader']?.[0]).toMatchObject({
      status: 'pass',
      observedValue: 'collector-b:77',
    });
    expect(report.body.checks['limiter:shared']).toBeUndefined();
    expect(leaseReads).toBe(1);
  });

  it('warns while the store does not answer, keeping the last report, and passes once it answers again', async () => {
    const clock = new FakeClock();
    const store = new MemorySnapshotStore();
    await store.putCollectorStatus(healthyCollector(clock.nowMs));
    let storeDown = false;
    const health = currentHealth({
      collectorStatus: {
        getCollectorStatus: () =>
          storeDown
            ? Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432'))
            : store.getCollectorStatus(),
      },
      currentSnapshot: () => ({ id: 1, ...sampleSnapshot() }),
      clock: clock.now,
      refreshSeconds: 600,
      releaseId: '1.2.3',
    });
    expect((await health()).body.status).toBe('pass');

    storeDown = true;
    clock.advance(1000);
    const downSince = new Date(clock.nowMs).toISOString();
    const down = await health();
    expect(down.httpStatus).toBe(200);
    expect(down.body.status).toBe('warn');
    expect(down.body.checks['store:connection']?.[0]).toMatchObject({
      status: 'warn',
      observedValue: 'unreachable',
      time: downSince,
    });
    // The driver's message (an address here) is not shown to anyone who asks for health.
    expect(JSON.stringify(down.body)).not.toContain('ECONNREFUSED');
    expect(down.body.checks['collector:report']?.[0]?.status).toBe('pass');
    clock.advance(1000);
    expect((await health()).body.checks['store:connection']?.[0]?.time).toBe(downSince);

    storeDown = false;
    clock.advance(1000);
    const back = await health();
    expect(back.body.status).toBe('pass');
    expect(back.body.checks['store:connection']).toBeUndefined();
  });
});
