import { describe, expect, it } from 'vitest';
import { soakDrill } from '../../drills/soak.ts';
import { sayAs, testTeardown } from '../support/drill-test.ts';

describe('the soak drill, short', () => {
  it('serves 200 (or 403 for a just-revoked key) while keys are issued and revoked, leaking no descriptor', {
    timeout: 90_000,
  }, async () => {
    const result = await soakDrill(
      { seconds: 15, warmup: 5, clients: 4, keys: 10, rotateMs: 100, sampleSeconds: 2 },
      sayAs('soak'),
      testTeardown,
    );
    expect(result.issued).toBeGreaterThan(20);
    expect(result.unexpected).toBe(0);
    expect(result.descriptorsAfter).toBeLessThanOrEqual(result.descriptorsBefore + 2);
    // Loosely: twenty seconds say little about a slow leak; the 10-minute drill holds ±15 %.
    expect(result.rssSpreadPct).toBeLessThan(40);
  });
});
