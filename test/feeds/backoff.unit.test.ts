import { describe, expect, it } from 'vitest';
import { fullJitterDelay, retryAfterMs } from '../../src/feeds/backoff.ts';

describe('fullJitterDelay', () => {
  it('draws uniformly below a ceiling that doubles per attempt up to the maximum', () => {
    expect(fullJitterDelay(0, 500, 30_000, () => 0.999)).toBe(499);
    expect(fullJitterDelay(3, 500, 30_000, () => 0.5)).toBe(2_000);
    expect(fullJitterDelay(20, 500, 30_000, () => 0.999)).toBe(29_970);
    expect(fullJitterDelay(5, 500, 30_000, () => 0)).toBe(0);
  });
});

describe('retryAfterMs', () => {
  it('reads delay-seconds and HTTP-dates (RFC 9110 §10.2.3)', () => {
    expect(retryAfterMs('2')).toBe(2_000);
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(retryAfterMs('Wed, 01 Jan 2025 00:00:30 GMT', now)).toBe(30_000);
    expect(retryAfterMs('Tue, 31 Dec 2024 23:00:00 GMT', now)).toBe(0);
  });

  it('ignores an absent or unreadable header', () => {
    expect(retryAfterMs(null)).toBeNull();
    expect(retryAfterMs('soon')).toBeNull();
  });
});
