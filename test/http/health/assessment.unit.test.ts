import { Value } from 'typebox/value';
import { describe, expect, it } from 'vitest';
import { assessHealth } from '../../../src/http/health/assessment.ts';
import type { CollectorStatus, SourceState } from '../../../src/store/collector-status.ts';
import { HealthSchema } from '../../../src/web/health-report.ts';
import { healthyCollector } from '../../support/test-app.ts';

const now = Date.parse('2025-01-01T12:00:00.000Z');
const refreshSeconds = 600;
const snapshotAged = (seconds: number) => ({
  updated_at: new Date(now - seconds * 1000).toISOString(),
  count: 42,
});
const collector = (states: SourceState[] = ['up', 'up'], reportAgeSeconds = 1): CollectorStatus => ({
  ...healthyCollector(now),
  reported_at: new Date(now - reportAgeSeconds * 1000).toISOString(),
  sources: healthyCollector(now).sources.map((source, index) => ({
    ...source,
    state: states[index] ?? 'up',
    detail: states[index] === 'up' ? 'ok' : `reconnecting after: stalled 30 s`,
  })),
});
const assess = (snapshot: ReturnType<typeof snapshotAged> | null, report: CollectorStatus | null) =>
  assessHealth({ snapshot, collector: report, nowMs: now, refreshSeconds, releaseId: '0.1.0' });

describe('assessHealth thresholds', () => {
  it.each([
    ['fresh snapshot, sources up', snapshotAged(60), collector(), 'pass', 200],
    ['age exactly 1.5 × refresh', snapshotAged(900), collector(), 'pass', 200],
    ['age above 1.5 × refresh', snapshotAged(901), collector(), 'warn', 200],
    ['age exactly 3 × refresh', snapshotAged(1800), collector(), 'warn', 200],
    ['age above 3 × refresh', snapshotAged(1801), collector(), 'fail', 503],
    ['no snapshot', null, collector(), 'fail', 503],
    ['binance degraded', snapshotAged(60), collector(['degraded', 'up']), 'warn', 200],
    ['nobitex down', snapshotAged(60), collector(['up', 'down']), 'warn', 200],
    ['collector report 31 s old', snapshotAged(60), collector(['up', 'up'], 31), 'warn', 200],
    ['collector report 30 s old', snapshotAged(60), collector(['up', 'up'], 30), 'pass', 200],
    ['no collector report', snapshotAged(60), null, 'warn', 200],
    ['source down and snapshot too old', snapshotAged(4000), collector(['down', 'down']), 'fail', 503],
  ] as const)('%s → %s (HTTP %d)', (_label, snapshot, report, status, httpStatus) => {
    const result = assess(snapshot, report);
    expect(result.body.status).toBe(status);
    expect(result.httpStatus).toBe(httpStatus);
    expect(Value.Check(HealthSchema, result.body)).toBe(true);
    if (status !== 'pass') expect(result.body.output).toBeTruthy();
  });

  it('reports one check per source and one for the snapshot, in the draft’s checks format', () => {
    const { body } = assess(snapshotAged(120), collector(['up', 'degraded']));
    expect(Object.keys(body.checks).sort()).toEqual([
      'binance:connection',
      'collector:report',
      'nobitex:connection',
      'snapshot:age',
    ]);
    expect(body.checks['snapshot:age']).toEqual([
      expect.objectContaining({
        status: 'pass',
        observedValue: 120,
        observedUnit: 's',
        time: snapshotAged(120).updated_at,
      }),
    ]);
    expect(body.checks['nobitex:connection']?.[0]).toMatchObject({
      status: 'warn',
      observedValue: 'degraded',
      rejected: 0,
      last_message_at: expect.any(String),
    });
    expect(body).toMatchObject({
      version: '1',
      releaseId: '0.1.0',
      serviceId: 'nerkh',
      age_seconds: 120,
      count: 42,
      next_refresh_at: '2025-01-01T12:08:00.000Z',
    });
  });

  it('warns at once on a failed snapshot commit while the snapshot it could not replace is still fresh, and passes after a good one', () => {
    const failed = assess(snapshotAged(60), {
      ...collector(),
      last_commit: {
        outcome: 'failed',
        at: new Date(now - 2000).toISOString(),
        duration_ms: 4.2,
        error: 'DatabaseError 25006',
        last_ok_at: new Date(now - 60_000).toISOString(),
      },
    });
    expect(failed.httpStatus).toBe(200);
    expect(failed.body.status).toBe('warn');
    expect(failed.body.checks['snapshot:age']?.[0]?.status).toBe('pass');
    expect(failed.body.checks['collector:commit']).toEqual([
      expect.objectContaining({ status: 'warn', observedValue: 'failed', error: 'DatabaseError 25006' }),
    ]);
    expect(failed.body.output).toContain('The last snapshot commit failed (DatabaseError 25006)');
    expect(Value.Check(HealthSchema, failed.body)).toBe(true);

    const ok = assess(snapshotAged(1), {
      ...collector(),
      last_commit: {
        outcome: 'ok',
        at: new Date(now - 1000).toISOString(),
        duration_ms: 3,
        error: null,
        last_ok_at: new Date(now - 1000).toISOString(),
      },
    });
    expect(ok.body.status).toBe('pass');
    expect(ok.body.checks['collector:commit']?.[0]).toMatchObject({ status: 'pass', observedValue: 'ok' });
  });

  it('says which instance leads the collector, and warns while none does', () => {
    const leader = {
      instance: 'api-1:4242',
      term: 7,
      since: '2025-01-01T11:00:00.000Z',
      expiresAt: '2025-01-01T12:00:10.000Z',
      live: true,
    };
    const assessWith = (input: Partial<Parameters<typeof assessHealth>[0]>) =>
      assessHealth({
        snapshot: snapshotAged(60),
        collector: collector(),
        nowMs: now,
        refreshSeconds,
        releaseId: '0.1.0',
        ...input,
      });

    const leading = assessWith({ leader });
    expect(leading.body.status).toBe('pass');
    expect(leading.body.checks['collector:leader']).toEqual([
      {
        componentType: 'component',
        status: 'pass',
        time: '2025-01-01T11:00:00.000Z',
        observedValue: 'api-1:4242',
        output: 'Instance api-1:4242 leads the collector (term 7).',
        term: 7,
      },
    ]);
    expect(Value.Check(HealthSchema, leading.body)).toBe(true);

    const lapsed = assessWith({ leader: { ...leader, live: false } });
    expect(lapsed.httpStatus).toBe(200);
    expect(lapsed.body.status).toBe('warn');
    expect(lapsed.body.output).toBe(
      'collector:leader: The collector lease of instance api-1:4242 (term 7) ran out at 2025-01-01T12:00:10.000Z; no instance leads until a standby claims it.',
    );

    const never = assessWith({ leader: null });
    expect(never.body.status).toBe('warn');
    expect(never.body.checks['collector:leader']?.[0]).toMatchObject({ status: 'warn', observedValue: null });
    expect(Value.Check(HealthSchema, never.body)).toBe(true);

    // One process owning its store has no lease to report.
    expect(assessWith({}).body.checks['collector:leader']).toBeUndefined();
  });

  it('warns with the reason while each instance limits on its own, and passes while limits are shared', () => {
    const assessWith = (sharedLimits: Parameters<typeof assessHealth>[0]['sharedLimits']) =>
      assessHealth({
        snapshot: snapshotAged(60),
        collector: collector(),
        sharedLimits,
        nowMs: now,
        refreshSeconds,
        releaseId: '0.1.0',
      });
    const since = '2025-01-01T11:59:30.000Z';
    const local = assessWith({
      shared: false,
      since,
      reason: 'Redis does not answer (connect ECONNREFUSED 127.0.0.1:6379); each instance limits on its own',
    });
    expect(local.httpStatus).toBe(200);
    expect(local.body.status).toBe('warn');
    expect(local.body.checks['limiter:shared']).toEqual([
      {
        componentType: 'datastore',
        status: 'warn',
        time: since,
        observedValue: 'local',
        output: `Since ${since}: Redis does not answer (connect ECONNREFUSED 127.0.0.1:6379); each instance limits on its own.`,
      },
    ]);
    expect(local.body.output).toContain('limiter:shared: Since');
    expect(Value.Check(HealthSchema, local.body)).toBe(true);

    const shared = assessWith({ shared: true, since, reason: null });
    expect(shared.body.status).toBe('pass');
    expect(shared.body.checks['limiter:shared']?.[0]).toMatchObject({
      status: 'pass',
      observedValue: 'shared',
    });
  });
});

describe('assessHealth: sources by the coins they serve', () => {
  const withSources = (sources: CollectorStatus['sources']): CollectorStatus => ({ ...collector(), sources });
  const source = (name: string, state: SourceState, coins: number, detail = 'ok') => ({
    source: name,
    state,
    detail,
    last_message_at: null,
    rejected: 0,
    reconnects: 0,
    coins,
  });

  it('lists every source with the rows it prices; one down while serving coins fails its check, a fallback down only warns', () => {
    const refusal = 'HTTP 451: Service unavailable from a restricted location';
    const { body, httpStatus } = assess(
      snapshotAged(60),
      withSources([
        source('binance', 'down', 0, refusal),
        source('nobitex', 'up', 155),
        source('wallex', 'down', 3),
      ]),
    );
    expect(Value.Check(HealthSchema, body)).toBe(true);
    expect(httpStatus).toBe(200);
    expect(body.status).toBe('warn');
    expect(body.checks['binance:connection']?.[0]).toMatchObject({
      status: 'warn',
      observedValue: 'down',
      output: refusal,
      coins: 0,
    });
    expect(body.checks['nobitex:connection']?.[0]).toMatchObject({ status: 'pass', coins: 155 });
    expect(body.checks['wallex:connection']?.[0]).toMatchObject({ status: 'fail', coins: 3 });
    expect(body.output).toContain(`binance:connection: ${refusal}`);
  });

  it('fails the check of a down source from a collector that does not count coins, as before', () => {
    const { coins: _coins, ...uncounted } = source('binance', 'down', 0);
    const { body } = assess(snapshotAged(60), withSources([uncounted]));
    expect(body.checks['binance:connection']?.[0]).toMatchObject({ status: 'fail' });
    expect(body.checks['binance:connection']?.[0]).not.toHaveProperty('coins');
  });
});

describe('assessHealth: held prices', () => {
  it('warns, naming each held coin, its source and who prices it meanwhile', () => {
    const report: CollectorStatus = {
      ...collector(),
      held: [
        {
          symbol: 'SHIB',
          currency: 'usdt',
          source: 'binance',
          price: 0.0219,
          reference: 0.0000219,
          reason: 'own-price',
          since: '2025-01-01T11:55:00.000Z',
          served_by: 'nobitex',
        },
        {
          symbol: 'USDT',
          currency: 'toman',
          source: 'nobitex',
          price: 1_052_990,
          reference: 105_299,
          reason: 'own-price',
          since: '2025-01-01T11:56:00.000Z',
          served_by: 'nobitex',
        },
      ],
    };
    const { body, httpStatus } = assess(snapshotAged(60), report);
    expect(httpStatus).toBe(200);
    expect(body.status).toBe('warn');
    expect(Value.Check(HealthSchema, body)).toBe(true);
    expect(body.checks['prices:held']).toEqual([
      expect.objectContaining({
        componentId: 'SHIB/usdt/binance',
        status: 'warn',
        time: '2025-01-01T11:55:00.000Z',
        observedValue: 0.0219,
        source: 'binance',
        served_by: 'nobitex',
        output:
          "binance's SHIB price in tether, 0.0219, is 1000× its last accepted price 0.0000219: held, not published, since 2025-01-01T11:55:00.000Z; nobitex prices SHIB meanwhile.",
      }),
      expect.objectContaining({
        componentId: 'USDT/toman/nobitex',
        output:
          "nobitex's USDT price in toman, 1052990, is 10× its last accepted price 105299: held, not published, since 2025-01-01T11:56:00.000Z; USDT keeps its last price meanwhile (its as_of shows its age).",
      }),
    ]);
    expect(body.output).toContain('prices:held');
  });

  it('has no held-prices check while nothing is held', () => {
    const { body } = assess(snapshotAged(60), { ...collector(), held: [] });
    expect(body.checks['prices:held']).toBeUndefined();
    expect(body.status).toBe('pass');
  });
});
