import { describe, expect, it } from 'vitest';
import { RequestIds } from '../../../src/http/edge/request-ids.ts';

/** RFC 9562 §5.4: version 4 in the 13th digit, variant 10xx in the 17th, lower-case hex. */
const uuidV4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('fresh request ids', () => {
  it('are version-4 UUIDs, all different, across many batches', () => {
    const ids = new RequestIds();
    const seen = new Set<string>();
    for (let count = 0; count < 2000; count++) {
      const id = ids.next();
      expect(id).toMatch(uuidV4);
      seen.add(id);
    }
    expect(seen.size).toBe(2000);
  });

  it('use every hex digit where the UUID is random, as random bits would', () => {
    const ids = new RequestIds();
    const digitsAt = Array.from({ length: 36 }, () => new Set<string>());
    for (let count = 0; count < 1000; count++) {
      const id = ids.next();
      for (let at = 0; at < id.length; at++) digitsAt[at]?.add(id.charAt(at));
    }
    const randomHex = digitsAt.filter(
      (digits, at) => ![8, 13, 14, 18, 19, 23].includes(at) && digits.size === 16,
    );
    expect(randomHex).toHaveLength(30);
  });
});
