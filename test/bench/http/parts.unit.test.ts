import { describe, expect, it } from 'vitest';
import { benchParts, estimatedSeconds, parseParts } from '../../../bench/http/parts.ts';

describe('parseParts', () => {
  it('runs every part when --only is absent, and only the named ones when it is given', () => {
    expect([...parseParts(undefined)]).toEqual([...benchParts]);
    expect([...parseParts('outage, burst')]).toEqual(['outage', 'burst']);
  });

  it('refuses a name that is not a part instead of running less than asked', () => {
    expect(() => parseParts('redis,peer')).toThrow(/unknown part "peer"; the parts are base, redis/);
    expect(() => parseParts('')).toThrow(/unknown part ""/);
  });
});

describe('estimatedSeconds', () => {
  const timing = { rounds: 3, seconds: 8, warmUpSeconds: 80, burstWindowSeconds: 60, outagePhaseSeconds: 5 };

  it('counts nerkh in memory once for the load parts, as the bench runs it once beside them all', () => {
    const redisAlone = estimatedSeconds(new Set(['redis']), timing);
    const peersAlone = estimatedSeconds(new Set(['peers']), timing);
    const both = estimatedSeconds(new Set(['redis', 'peers']), timing);
    const nerkhRuns = 80 + 3 * (2 + 8);
    expect(both).toBe(redisAlone + peersAlone - 20 - nerkhRuns);
  });

  it('adds the burst its one window of waiting', () => {
    const without = estimatedSeconds(new Set(['outage']), timing);
    const withBurst = estimatedSeconds(new Set(['outage', 'burst']), timing);
    expect(withBurst - without).toBeGreaterThanOrEqual(60);
  });
});
