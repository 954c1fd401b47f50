import { describe, expect, it } from 'vitest';
import { sourceFaultsDrill } from '../../drills/source-faults.ts';
import { SIMULATOR_FAULTS } from '../../src/simulator/faults.ts';
import { sayAs, testTeardown } from '../support/drill-test.ts';

describe('the source-faults drill, short', () => {
  it('serves 200 through every simulator fault on Binance, failing over when geo-blocked and returning', {
    timeout: 150_000,
  }, async () => {
    const result = await sourceFaultsDrill(
      { faultSeconds: 5, stale: 4, returnAfter: 1, clients: 2 },
      sayAs('source-faults'),
      testTeardown,
    );
    for (const phase of result.phases)
      expect({ [phase.phase]: Object.keys(phase.tally) }).toEqual({ [phase.phase]: ['200'] });
    expect(result.coins.map((entry) => entry.fault)).toEqual(
      SIMULATOR_FAULTS.filter((fault) => fault !== 'none'),
    );
    const geoBlock = result.coins.find((entry) => entry.fault === 'geo-block');
    expect(geoBlock?.during).toBe(0);
    for (const entry of result.coins)
      expect({ [entry.fault]: entry.returned > 0 }).toEqual({ [entry.fault]: true });
  });
});
