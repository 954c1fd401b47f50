import {
  type KeyRequest,
  type KeyRequestDecision,
  type KeyRequestDraft,
  KeyRequestStateError,
  type KeyRequestStatus,
  newKeyRequest,
} from '../key-request.ts';
import type { KeyRequestStore } from '../types.ts';

/** In-memory twin of SqliteKeyRequestStore for tests: same contract, nothing survives the process. */
export class MemoryKeyRequestStore implements KeyRequestStore {
  readonly #requests = new Map<string, KeyRequest>();

  async createKeyRequest(draft: KeyRequestDraft, now = new Date()): Promise<KeyRequest> {
    const request = newKeyRequest(draft, now);
    this.#requests.set(request.id, request);
    return structuredClone(request);
  }

  async getKeyRequest(id: string): Promise<KeyRequest | null> {
    const request = this.#requests.get(id);
    return request ? structuredClone(request) : null;
  }

  async listKeyRequests(filter: { status?: KeyRequestStatus } = {}): Promise<KeyRequest[]> {
    return [...this.#requests.values()]
      .filter((request) => filter.status === undefined || request.status === filter.status)
      .sort((a, b) => a.created_at.localeCompare(b.created_at))
      .map((request) => structuredClone(request));
  }

  async countKeyRequests(status: KeyRequestStatus): Promise<number> {
    let count = 0;
    for (const request of this.#requests.values()) if (request.status === status) count++;
    return count;
  }

  async countKeyRequestsSince(clientHash: string, since: string): Promise<number> {
    let count = 0;
    for (const request of this.#requests.values()) {
      if (request.client_hash === clientHash && request.created_at >= since) count++;
    }
    return count;
  }

  async decideKeyRequest(
    id: string,
    decision: KeyRequestDecision,
    now = new Date(),
  ): Promise<KeyRequest | null> {
    const request = this.#requests.get(id);
    if (!request) return null;
    if (request.status !== 'pending')
      throw new KeyRequestStateError(`request ${id} is already ${request.status}`);
    request.status = decision.status;
    request.key_id = decision.status === 'approved' ? decision.key_id : null;
    request.decided_at = now.toISOString();
    return structuredClone(request);
  }
}
