import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  apiKeyDigest,
  displayPrefix,
  generateApiKey,
  hashApiKey,
  hashOfDigest,
  isWellFormedApiKey,
} from '../../src/keys/api-key.ts';
import { issueApiKey } from '../../src/keys/issue-key.ts';
import { MemoryApiKeyStore } from '../../src/store/memory/key-store.ts';

describe('API key format', () => {
  it('is nerkh_<22 base62>_<6 base62 checksum> and recognised as well formed', () => {
    const key = generateApiKey();
    expect(key).toMatch(/^nerkh_[0-9A-Za-z]{22}_[0-9A-Za-z]{6}$/);
    expect(isWellFormedApiKey(key)).toBe(true);
  });

  it('carries at least 128 bits: no two of many keys share a body', () => {
    const bodies = new Set(Array.from({ length: 2000 }, () => generateApiKey().slice(6, 28)));
    expect(bodies.size).toBe(2000);
  });

  it('refuses any single-character change (checksum), so typos never reach the store', () => {
    const key = generateApiKey();
    fc.assert(
      fc.property(
        fc.integer({ min: 6, max: key.length - 1 }),
        fc.constantFrom(...'0123456789abcXYZ'),
        (at, ch) => {
          fc.pre(key[at] !== '_' && key[at] !== ch);
          expect(isWellFormedApiKey(key.slice(0, at) + ch + key.slice(at + 1))).toBe(false);
        },
      ),
    );
  });

  it('refuses other shapes', () => {
    for (const bad of [
      '',
      'nerkh_',
      'Bearer x',
      `${generateApiKey()} `,
      generateApiKey().replace('nerkh_', 'NERKH_'),
    ]) {
      expect(isWellFormedApiKey(bad)).toBe(false);
    }
  });

  it('hashes with SHA-256 and shows only a short prefix', () => {
    const key = generateApiKey();
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
    // The cache's compact digest is the same SHA-256, convertible to the stored form.
    expect(apiKeyDigest(key)).toHaveLength(32);
    expect(hashOfDigest(apiKeyDigest(key))).toBe(hashApiKey(key));
    expect(displayPrefix(key)).toBe(key.slice(0, 12));
  });
});

describe('issueApiKey', () => {
  it('stores the hash, prefix and details, and returns the plain key once', async () => {
    const store = new MemoryApiKeyStore();
    const { key, record } = await issueApiKey(store, {
      org: ' Acme ',
      purpose: 'price board',
      contact: 'ops@acme.test',
      rateLimit: 120,
    });
    expect(record).toMatchObject({
      org: 'Acme',
      purpose: 'price board',
      contact: 'ops@acme.test',
      rate_limit: 120,
      hash: hashApiKey(key),
      prefix: key.slice(0, 12),
      revoked_at: null,
    });
    expect(record.id).toMatch(/^key_[0-9a-f]{12}$/);
    expect(JSON.stringify(record)).not.toContain(key);
  });

  it.each([
    [{ org: '', purpose: 'p' }, 'org must not be empty'],
    [{ org: 'o', purpose: '  ' }, 'purpose must not be empty'],
    [{ org: 'o', purpose: 'p', rateLimit: 0 }, 'limit must be a whole number'],
    [{ org: 'o', purpose: 'p', rateLimit: 1.5 }, 'limit must be a whole number'],
    [{ org: 'o', purpose: 'p', expiresAt: 'soon' }, 'expiry must be an ISO 8601'],
  ])('refuses %o', async (input, message) => {
    await expect(issueApiKey(new MemoryApiKeyStore(), input)).rejects.toThrow(message);
  });
});
