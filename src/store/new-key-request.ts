import { randomBytes } from 'node:crypto';
import type { KeyRequest, KeyRequestDraft } from './types.ts';

/** Short, unambiguous ids an operator can type: `req_` and 12 lowercase hex digits (48 random bits). */
export function newKeyRequestId(): string {
  return `req_${randomBytes(6).toString('hex')}`;
}

/** A freshly received request, as every KeyRequestStore stores it: pending, undecided, no key. */
export function newKeyRequest(draft: KeyRequestDraft, now: Date): KeyRequest {
  return {
    id: newKeyRequestId(),
    ...draft,
    status: 'pending',
    created_at: now.toISOString(),
    decided_at: null,
    key_id: null,
  };
}
