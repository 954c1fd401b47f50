import { describe, expect, it } from 'vitest';
import { parseRateLimitFields } from '../src/rate-limit-fields.ts';
import { RequestBudget } from '../src/request-budget.ts';

describe('parseRateLimitFields', () => {
  it('reads every policy of the lists, with unknown parameters ignored', () => {
    const headers = new Headers({
      'RateLimit-Policy': '"default";q=60;w=60, "burst";q=10;w=1;pk=:abc=:',
      RateLimit: '"default";r=12;t=7',
    });
    expect(parseRateLimitFields(headers)).toEqual({
      policies: [
        { name: 'default', quota: 60, window: 60 },
        { name: 'burst', quota: 10, window: 1 },
      ],
      limits: [{ name: 'default', remaining: 12, reset: 7 }],
    });
  });

  it('is null without the fields, and drops members it cannot read instead of guessing', () => {
    expect(parseRateLimitFields(new Headers())).toBeNull();
    expect(parseRateLimitFields(new Headers({ RateLimit: '"default";r=x;t=7, ;' }))).toEqual({
      policies: [],
      limits: [],
    });
  });
});

describe('RequestBudget', () => {
  it('keeps `reserve` requests of each window unused', () => {
    const budget = new RequestBudget({ reserve: 2 });
    const info = (remaining: number) => ({
      policies: [{ name: 'default', quota: 60, window: 60 }],
      limits: [{ name: 'default', remaining, reset: 30 }],
    });
    budget.recordCounted(info(3), 0);
    expect(budget.waitSeconds(0)).toBe(0);
    budget.recordCounted(info(2), 1000);
    expect(budget.waitSeconds(1000)).toBe(30);
    expect(budget.waitSeconds(31_000)).toBe(0);
  });
});
