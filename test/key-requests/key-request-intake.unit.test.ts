import { describe, expect, it } from 'vitest';
import { KeyRequestIntake } from '../../src/key-requests/key-request-intake.ts';
import type { KeyRequest } from '../../src/store/key-request.ts';
import { MemoryKeyRequestStore } from '../../src/store/memory/key-request-store.ts';

const fields = {
  name: 'Sara Ahmadi',
  org: 'Kavir Analytics',
  email: 'sara@kavir.example',
  purpose: 'Show toman prices of coins in our portfolio app',
  expected_use: null,
};

function intake(requestsPerHour = 2) {
  const store = new MemoryKeyRequestStore();
  const announced: KeyRequest[] = [];
  let nowMs = Date.parse('2025-01-01T12:00:00.000Z');
  const keyRequests = new KeyRequestIntake({
    store,
    secret: 'test-secret-0123456789abcdef0123456789',
    requestsPerHour,
    clock: () => nowMs,
    announce: (request) => announced.push(request),
  });
  return {
    keyRequests,
    store,
    announced,
    advance: (ms: number) => {
      nowMs += ms;
    },
  };
}

describe('KeyRequestIntake', () => {
  it('stores a request pending, known by a hash of its network, and announces it', async () => {
    const { keyRequests, store, announced } = intake();
    const stored = await keyRequests.submit(fields, '203.0.113.7');
    expect(stored?.status).toBe('pending');
    expect(stored?.client_hash).toMatch(/^[0-9a-f]{32}$/);
    expect(await store.listKeyRequests()).toEqual([stored]);
    expect(announced).toEqual([stored]);
  });

  it('refuses, storing and announcing nothing, once a network used up its hour; an hour later it takes again', async () => {
    const { keyRequests, store, announced, advance } = intake(2);
    // Two addresses of one IPv6 /64 are one client network.
    expect(await keyRequests.submit(fields, '2001:db8:1:2::1')).not.toBeNull();
    expect(await keyRequests.submit(fields, '2001:db8:1:2::ffff')).not.toBeNull();
    expect(await keyRequests.submit(fields, '2001:db8:1:2::3')).toBeNull();
    // Another network has its own count.
    expect(await keyRequests.submit(fields, '2001:db8:1:3::1')).not.toBeNull();
    expect(await store.listKeyRequests()).toHaveLength(3);
    expect(announced).toHaveLength(3);
    advance(60 * 60 * 1000 + 1);
    expect(await keyRequests.submit(fields, '2001:db8:1:2::3')).not.toBeNull();
  });
});
