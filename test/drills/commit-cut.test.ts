import { describe, expect, it } from 'vitest';
import { commitCutDrill } from '../../drills/commit-cut.ts';
import { sayAs, testTeardown } from '../support/drill-test.ts';
import { skipPostgres } from '../support/postgres.ts';

describe.skipIf(skipPostgres)('the commit-cut drill, short', () => {
  it('leaves no torn snapshot when the connection breaks mid-commit, and commits again after', {
    timeout: 90_000,
  }, async () => {
    const result = await commitCutDrill({ outage: 2, cuts: 1 }, sayAs('commit-cut'), testTeardown);
    expect(result.torn).toBe(0);
    expect(result.cuts).toHaveLength(1);
    expect(result.cuts[0]?.after).toBeGreaterThan(result.cuts[0]?.before ?? Number.POSITIVE_INFINITY);
    expect(result.collectorLines.some((line) => line.startsWith('snapshot commit failed'))).toBe(true);
    expect(result.ok).toBe(true);
  });
});
