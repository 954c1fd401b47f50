import { describe, expect, it } from 'vitest';
import { fuzzDrill } from '../../drills/fuzz.ts';
import { sayAs, testTeardown } from '../support/drill-test.ts';

describe('the fuzz drill, short', () => {
  it('answers 3,000 fuzzed requests without a 5xx, a hang or a crash', { timeout: 90_000 }, async () => {
    const result = await fuzzDrill({ requests: 3000, concurrency: 16, seed: 7 }, sayAs('fuzz'), testTeardown);
    expect(result.serverErrors).toEqual([]);
    expect(result.alive).toBe(true);
    expect(result.tally.timeout).toBeUndefined();
    expect(result.rssPeakKiB).toBeLessThan(result.rssStartKiB * 2);
    // The requests reached the routes, not only the parser: some were answered with rates.
    expect(result.tally['200']).toBeGreaterThan(100);
  });
});
