import { type Command, InvalidArgumentError, Option } from 'commander';
import { loadConfig } from '../config.ts';
import { issueApiKey } from '../keys/issue-key.ts';
import { type KeyRequest, KeyRequestStateError, type KeyRequestStatus } from '../store/key-request.ts';
import { openStore } from '../store/open-store.ts';
import type { ApiKeyStore, KeyRequestStore } from '../store/types.ts';
import { table, terminalSafe, terminalSafeJson } from './terminal-output.ts';

/**
 * `nerkh requests list|approve|reject` (docs/operations.md#command-line): the operator's side of the contact page.
 * Requests hold text typed by strangers, so everything printed goes through terminal-output.ts.
 */

export interface RequestStores {
  keyRequests: KeyRequestStore;
  keys: ApiKeyStore;
}

/** The stored record as operators see it: the client hash is an internal rate-limit detail. */
function shown(request: KeyRequest): Omit<KeyRequest, 'client_hash'> {
  const { client_hash: _clientHash, ...rest } = request;
  return rest;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export async function listRequests(
  stores: RequestStores,
  options: { json?: boolean; status?: KeyRequestStatus },
): Promise<string> {
  const requests = await stores.keyRequests.listKeyRequests(
    options.status === undefined ? {} : { status: options.status },
  );
  if (options.json) return terminalSafeJson({ requests: requests.map(shown) });
  if (requests.length === 0) {
    return options.status === undefined
      ? 'No key requests yet. They arrive through the contact page (/contact).'
      : `No ${options.status} key requests.`;
  }
  const rows = requests.map((request) => [
    request.id,
    request.status,
    request.created_at,
    clip(request.org, 30),
    clip(request.name, 24),
    clip(request.email, 32),
    clip(request.purpose.replace(/\s+/g, ' '), 48),
  ]);
  return table([['ID', 'STATUS', 'RECEIVED', 'ORG', 'NAME', 'EMAIL', 'PURPOSE'], ...rows]);
}

async function pendingRequest(stores: RequestStores, id: string): Promise<KeyRequest> {
  const request = await stores.keyRequests.getKeyRequest(id);
  if (request === null)
    throw new Error(`no key request has id "${terminalSafe(id)}"; see nerkh requests list`);
  if (request.status !== 'pending') throw new Error(`request ${request.id} is already ${request.status}`);
  return request;
}

/** Issues a key to the requesting organisation and marks the request approved with its id. */
export async function approveRequest(
  stores: RequestStores,
  id: string,
  options: { json?: boolean; limit?: number },
): Promise<string> {
  const request = await pendingRequest(stores, id);
  const issued = await issueApiKey(stores.keys, {
    org: request.org,
    purpose: request.purpose,
    contact: request.email,
    rateLimit: options.limit ?? null,
  });
  let decided: KeyRequest | null;
  try {
    decided = await stores.keyRequests.decideKeyRequest(request.id, {
      status: 'approved',
      key_id: issued.record.id,
    });
  } catch (error) {
    // Another operator decided the request meanwhile: the key just issued must not stay usable.
    if (error instanceof KeyRequestStateError) await stores.keys.revokeApiKey(issued.record.id);
    throw error;
  }
  if (decided === null) throw new Error(`request ${request.id} disappeared while it was approved`);
  if (options.json)
    return terminalSafeJson({ request: shown(decided), key_id: issued.record.id, key: issued.key });
  return [
    terminalSafe(`Approved ${decided.id} (${decided.org}); issued key ${issued.record.id}.`),
    terminalSafe(`Send this key to ${decided.email}. It is shown only once: only its hash is kept.`),
    issued.key,
  ].join('\n');
}

export async function rejectRequest(
  stores: RequestStores,
  id: string,
  options: { json?: boolean },
): Promise<string> {
  const request = await pendingRequest(stores, id);
  const decided = await stores.keyRequests.decideKeyRequest(request.id, { status: 'rejected' });
  if (decided === null) throw new Error(`request ${request.id} disappeared while it was rejected`);
  if (options.json) return terminalSafeJson({ request: shown(decided) });
  return terminalSafe(
    `Rejected ${decided.id} (${decided.org}). No key was issued; reply to ${decided.email} if needed.`,
  );
}

/** Opens the stores in NERKH_DATA_DIR for one command; SQLite WAL lets this run beside a server. */
async function withStores(work: (stores: RequestStores) => Promise<string>): Promise<void> {
  const store = await openStore(loadConfig());
  try {
    const output = await work({ keyRequests: store.keyRequests, keys: store.keys });
    process.stdout.write(`${output}\n`);
  } finally {
    await store.close();
  }
}

function parseLimit(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 1_000_000) {
    throw new InvalidArgumentError('must be a whole number of requests from 1 to 1000000');
  }
  return Number(value);
}

export function registerRequests(program: Command): void {
  const requests = program
    .command('requests')
    .description('review API key requests sent through the contact page');

  requests
    .command('list')
    .description('list key requests, oldest first')
    .addOption(
      new Option('--status <status>', 'only requests in this state').choices([
        'pending',
        'approved',
        'rejected',
      ]),
    )
    .option('--json', 'print one JSON object: {"requests": [...]}')
    .action(async (options: { json?: boolean; status?: KeyRequestStatus }) => {
      await withStores((stores) => listRequests(stores, options));
    });

  requests
    .command('approve')
    .description('issue a key to the requesting organisation and print it once')
    .argument('<id>', 'request id as shown by `nerkh requests list` (req_…)')
    .option('--limit <n>', 'requests per rate window for this key (default NERKH_RATE_LIMIT)', parseLimit)
    .option('--json', 'print one JSON object: {"request": {...}, "key_id", "key"}')
    .action(async (id: string, options: { json?: boolean; limit?: number }) => {
      await withStores((stores) => approveRequest(stores, id, options));
    });

  requests
    .command('reject')
    .description('mark a request rejected; no key is issued')
    .argument('<id>', 'request id as shown by `nerkh requests list` (req_…)')
    .option('--json', 'print one JSON object: {"request": {...}}')
    .action(async (id: string, options: { json?: boolean }) => {
      await withStores((stores) => rejectRequest(stores, id, options));
    });
}
