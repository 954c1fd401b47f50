import { describe, expect, it } from 'vitest';
import { postgresRestartDrill } from '../../drills/postgres-restart.ts';
import { sayAs, testTeardown } from '../support/drill-test.ts';
import { skipPostgres } from '../support/postgres.ts';

/**
 * The short version cuts nerkh's connections through a TCP proxy instead of restarting the
 * machine's PostgreSQL, which other suites running at the same time use
 * (`npm run drill:postgres-restart` restarts it).
 */
describe.skipIf(skipPostgres)('the PostgreSQL outage drill, short', () => {
  it('serves cached keys 200 through the outage, reports it in health, and loses nothing', {
    timeout: 90_000,
  }, async () => {
    const result = await postgresRestartDrill(
      { fault: 'cut', phaseSeconds: 3, outage: 3, clients: 4 },
      sayAs('postgres-outage'),
      testTeardown,
    );
    for (const phase of result.phases)
      expect({ [phase.phase]: Object.keys(phase.tally) }).toEqual({ [phase.phase]: ['200'] });
    expect(result.healthStates.some((state) => state.includes('store:connection warn unreachable'))).toBe(
      true,
    );
    expect(result.healthStates.at(-1)).toMatch(/^pass/);
    expect(result.dataIntact).toBe(true);
    expect(result.snapshotsAfter).toBeGreaterThan(0);
  });
});
