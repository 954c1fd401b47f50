import { describe, expect, it } from 'vitest';
import { failedCommitDrill, tmpfsUnavailable } from '../../drills/failed-commit.ts';
import { sayAs, testTeardown } from '../support/drill-test.ts';

const unavailable = tmpfsUnavailable();
if (unavailable !== null) process.stdout.write(`Failed-commit test skipped: ${unavailable}\n`);

describe.skipIf(unavailable !== null)(
  'the failed-commit drill, short (data directory on a full tmpfs)',
  () => {
    it('keeps serving the last good snapshot while commits fail for want of space, and commits once space returns', {
      timeout: 90_000,
    }, async () => {
      const result = await failedCommitDrill(
        { mode: 'full', seconds: 3, clients: 2 },
        sayAs('failed-commit'),
        testTeardown,
      );
      for (const phase of result.phases)
        expect({ [phase.phase]: Object.keys(phase.tally) }).toEqual({ [phase.phase]: ['200'] });
      expect(result.failedCommits[0]).toMatch(/^snapshot commit failed.*SQLITE_FULL/);
      expect(result.servedIds.during).toBe(result.servedIds.lastGood);
      expect(result.servedIds.after).not.toBe(result.servedIds.during);
      expect(result.ageWhileFailing).toBeGreaterThan(result.ageBefore);
      // What /v1/health said while commits failed: the failed commit at once, and the snapshot's
      // age grown past its bounds.
      const healthWhileFailing = result.healthWhileFailing;
      if (typeof healthWhileFailing === 'string')
        throw new Error(`no health while failing: ${healthWhileFailing}`);
      expect(healthWhileFailing.checks['collector:commit']?.[0]?.status).toBe('warn');
      expect(healthWhileFailing.checks['snapshot:age']?.[0]?.status).not.toBe('pass');
    });
  },
);
