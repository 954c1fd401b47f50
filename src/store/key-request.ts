import { randomBytes } from 'node:crypto';

/** A request for an API key, sent through the contact page; keys are issued by hand, on request. */

export type KeyRequestStatus = 'pending' | 'approved' | 'rejected';

/** What the contact page collects. */
export interface KeyRequestDraft {
  name: string;
  org: string;
  email: string;
  purpose: string;
  expected_use: string | null;
  /** Keyed hash of the requester's IP (never the IP itself), for the per-client submission limit. */
  client_hash: string | null;
}

export interface KeyRequest extends KeyRequestDraft {
  id: string;
  status: KeyRequestStatus;
  created_at: string;
  decided_at: string | null;
  /** The issued key's id once approved. */
  key_id: string | null;
}

export type KeyRequestDecision = { status: 'approved'; key_id: string } | { status: 'rejected' };

/** A decision on a request that was already decided: two operators never both decide one. */
export class KeyRequestStateError extends Error {
  override name = 'KeyRequestStateError';
}

/** Short, unambiguous ids an operator can type: `req_` and 12 lowercase hex digits (48 random bits). */
function newKeyRequestId(): string {
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
