import type { ApiKeyRecord } from '../store/api-key-record.ts';
import type { ApiKeyStore } from '../store/types.ts';
import { displayPrefix, generateApiKey, hashApiKey, newApiKeyId } from './api-key.ts';

interface IssueKeyInput {
  org: string;
  purpose: string;
  contact?: string | null;
  /** Per-key override of the request limit per window; null or absent for the default. */
  rateLimit?: number | null;
  /** ISO 8601 expiry, or null/absent for a key that lasts until revoked. */
  expiresAt?: string | null;
}

class IssueKeyError extends Error {
  override name = 'IssueKeyError';
}

interface IssuedKey {
  record: ApiKeyRecord;
  /** The plain key. It exists only here: the store keeps its hash, so it cannot be shown again. */
  key: string;
}

function requiredText(name: string, value: string | undefined | null, max: number): string {
  const text = (value ?? '').trim();
  if (text === '') throw new IssueKeyError(`${name} must not be empty`);
  if (text.length > max) throw new IssueKeyError(`${name} must be at most ${max} characters`);
  return text;
}

/** Issues a key to an organisation (docs/architecture.md#keys): validates the input, stores the hash, returns the key once. */
export async function issueApiKey(
  store: ApiKeyStore,
  input: IssueKeyInput,
  now = new Date(),
): Promise<IssuedKey> {
  const org = requiredText('org', input.org, 200);
  const purpose = requiredText('purpose', input.purpose, 500);
  const contact = input.contact == null || input.contact.trim() === '' ? null : input.contact.trim();
  if (contact !== null && contact.length > 200)
    throw new IssueKeyError('contact must be at most 200 characters');
  const rateLimit = input.rateLimit ?? null;
  if (rateLimit !== null && (!Number.isInteger(rateLimit) || rateLimit < 1 || rateLimit > 1_000_000)) {
    throw new IssueKeyError('limit must be a whole number of requests between 1 and 1000000');
  }
  const expiresAt = input.expiresAt ?? null;
  if (expiresAt !== null && Number.isNaN(Date.parse(expiresAt))) {
    throw new IssueKeyError('expiry must be an ISO 8601 date-time');
  }
  const key = generateApiKey();
  const record: ApiKeyRecord = {
    id: newApiKeyId(),
    prefix: displayPrefix(key),
    hash: hashApiKey(key),
    org,
    contact,
    purpose,
    rate_limit: rateLimit,
    created_at: now.toISOString(),
    expires_at: expiresAt === null ? null : new Date(expiresAt).toISOString(),
    revoked_at: null,
    last_used_at: null,
  };
  await store.insertApiKey(record);
  return { record, key };
}
