import { createHmac } from 'node:crypto';
import { clientNetwork } from '../net/client-network.ts';
import type { KeyRequest, KeyRequestDraft } from '../store/key-request.ts';
import type { KeyRequestStore } from '../store/types.ts';

/** The window of the per-client limit: an hour. */
export const keyRequestWindowSeconds = 60 * 60;

export interface KeyRequestIntakeOptions {
  store: KeyRequestStore;
  /** Key of the per-client hashes (`NERKH_FORM_SECRET`); shared by all instances, so they count alike. */
  secret: string | Buffer;
  /** Key requests accepted from one client network per hour. */
  requestsPerHour: number;
  /** Epoch milliseconds; tests pass a fake clock. */
  clock: () => number;
  /**
   * Tells the operator of a stored request (the pending gauge, the webhook): returns at once and
   * never throws, so the requester's answer never waits on it.
   */
  announce: (request: KeyRequest) => void;
}

/** What the contact form collects: a request's fields but the client's hash, which is made here. */
export type KeyRequestFields = Omit<KeyRequestDraft, 'client_hash'>;

/**
 * The store side of the contact form: keeps each key request for the operator (`nerkh requests`),
 * at most `requestsPerHour` per client network (docs/architecture.md#the-website), and tells the
 * operator of each one stored. A client is known only by a keyed hash of its network, never its
 * address.
 */
export class KeyRequestIntake {
  readonly requestsPerHour: number;
  readonly #options: KeyRequestIntakeOptions;

  constructor(options: KeyRequestIntakeOptions) {
    this.#options = options;
    this.requestsPerHour = options.requestsPerHour;
  }

  /** Stores the request sent from `clientAddress`; null, storing nothing, when its network's hour is used up. */
  async submit(fields: KeyRequestFields, clientAddress: string): Promise<KeyRequest | null> {
    const { store, secret, clock } = this.#options;
    const clientHash = createHmac('sha256', secret)
      .update(`client:${clientNetwork(clientAddress)}`)
      .digest('hex')
      .slice(0, 32);
    const nowMs = clock();
    const recent = await store.countKeyRequestsSince(
      clientHash,
      new Date(nowMs - keyRequestWindowSeconds * 1000).toISOString(),
    );
    if (recent >= this.requestsPerHour) return null;
    const stored = await store.createKeyRequest({ ...fields, client_hash: clientHash }, new Date(nowMs));
    this.#options.announce(stored);
    return stored;
  }
}
