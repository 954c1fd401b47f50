import { describe, expect, it } from 'vitest';
import { reachOf } from '../../src/cli/sources.ts';
import type { SourceTrial } from '../../src/collector/try-sources.ts';

const trial = (ok: boolean, detail: string): SourceTrial => ({
  name: 'x',
  kind: 'json-http',
  ok,
  detail,
  requested: 1,
  quoted: ok ? 1 : 0,
  missing: [],
  rejected: {},
  markets: [],
});

describe('reachOf: what sources check says of each source', () => {
  it.each([
    [true, 'quoted 6 of 6 markets', 'reachable'],
    [false, 'HTTP 451: Service unavailable from a restricted location', 'refused'],
    [false, 'HTTP 403: Forbidden', 'refused'],
    [false, 'no answer within 10 s', 'timeout'],
    [false, 'stalled: nothing for 30000 ms', 'timeout'],
    [false, 'request failed (fetch failed: connect ECONNREFUSED 127.0.0.1:9)', 'error'],
    [false, 'HTTP 503, 3 times in a row', 'error'],
    [false, 'answered, but quoted none of the markets asked of it', 'error'],
  ] as const)('ok=%s "%s" is %s', (ok, detail, reach) => {
    expect(reachOf(trial(ok, detail))).toBe(reach);
  });
});
