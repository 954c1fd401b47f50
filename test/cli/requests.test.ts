import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { approveRequest, listRequests, type RequestStores, rejectRequest } from '../../src/cli/requests.ts';
import { loadConfig } from '../../src/config.ts';
import { hashApiKey } from '../../src/keys/api-key.ts';
import type { KeyRequestDraft } from '../../src/store/key-request.ts';
import { MemoryKeyRequestStore } from '../../src/store/memory/key-request-store.ts';
import { openStore } from '../../src/store/open-store.ts';

const run = promisify(execFile);
const bin = join(import.meta.dirname, '../../bin/nerkh.js');

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A data directory with its store open, as the commands open it. */
async function dataDir(): Promise<{ dir: string; stores: RequestStores }> {
  const dir = mkdtempSync(join(tmpdir(), 'nerkh-cli-requests-'));
  const store = await openStore(loadConfig({ NERKH_DATA_DIR: dir }));
  cleanups.push(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { dir, stores: store };
}

const draft: KeyRequestDraft = {
  name: 'Sara Ahmadi',
  org: 'Kavir Analytics',
  email: 'sara@kavir.example',
  purpose: 'Show toman prices in our portfolio app',
  expected_use: 'One request per minute',
  client_hash: 'abc',
};

async function nerkh(dir: string, ...args: string[]) {
  try {
    const { stdout, stderr } = await run(process.execPath, [bin, ...args], {
      env: { ...process.env, NERKH_DATA_DIR: dir, LOG_LEVEL: 'silent' },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('requests list', () => {
  it('shows each request with its id, state and what the requester typed', async () => {
    const { stores } = await dataDir();
    const request = await stores.keyRequests.createKeyRequest(draft, new Date('2025-06-01T10:00:00Z'));
    const output = await listRequests(stores, {});
    expect(output.split('\n')[0]).toMatch(/^ID\s+STATUS\s+RECEIVED\s+ORG\s+NAME\s+EMAIL\s+PURPOSE$/);
    expect(output).toContain(request.id);
    expect(output).toMatch(
      /pending\s+2025-06-01T10:00:00.000Z\s+Kavir Analytics\s+Sara Ahmadi\s+sara@kavir.example/,
    );
    const json = JSON.parse(await listRequests(stores, { json: true }));
    const { client_hash: _internal, ...typed } = draft;
    expect(json.requests).toEqual([
      {
        id: request.id,
        ...typed,
        status: 'pending',
        created_at: '2025-06-01T10:00:00.000Z',
        decided_at: null,
        key_id: null,
      },
    ]);
  });

  it('filters by status and says so when nothing matches', async () => {
    const { stores } = await dataDir();
    await stores.keyRequests.createKeyRequest(draft);
    expect(await listRequests(stores, { status: 'approved' })).toBe('No approved key requests.');
    const empty = { ...stores, keyRequests: new MemoryKeyRequestStore() };
    expect(await listRequests(empty, {})).toMatch(/^No key requests yet/);
  });

  it('never sends terminal control sequences or bidi overrides from a request to the terminal', async () => {
    const { stores } = await dataDir();
    await stores.keyRequests.createKeyRequest({
      ...draft,
      name: '\u001b[2J\u001b]0;pwned\u0007',
      org: 'Evil\u202eCorp\u009b31m',
      purpose: '<script>alert(1)</script>\nline two\u2028three',
    });
    const output = await listRequests(stores, {});
    // Line breaks between table rows are the only control characters allowed through.
    expect(output.replaceAll('\n', '')).not.toMatch(/[\p{Cc}\u2028\u202e]/u);
    expect(output).toContain('\\u{1b}[2J');
    expect(output).toContain('Evil\\u{202e}Corp\\u{9b}31m');
    expect(output).toContain('<script>alert(1)</script>');
    const json = await listRequests(stores, { json: true });
    expect(json).not.toMatch(/[\p{Cc}\u2028\u202e]/u);
    // Escaped, not lost: the JSON still carries exactly what was typed.
    expect(JSON.parse(json).requests[0].org).toBe('Evil\u202eCorp\u009b31m');
  });
});

describe('requests approve and reject', () => {
  it('issues a working key for the organisation, records its id, and prints the key once', async () => {
    const { stores } = await dataDir();
    const request = await stores.keyRequests.createKeyRequest(draft);
    const output = await approveRequest(stores, request.id, {});
    const key = output.split('\n').at(-1) as string;
    expect(key).toMatch(/^nerkh_[A-Za-z0-9]+_[A-Za-z0-9]+$/);
    const record = await stores.keys.findApiKeyByHash(hashApiKey(key));
    expect(record).toMatchObject({ org: 'Kavir Analytics', purpose: draft.purpose, contact: draft.email });
    const decided = await stores.keyRequests.getKeyRequest(request.id);
    expect(decided).toMatchObject({ status: 'approved', key_id: record?.id });
    expect(await listRequests(stores, {})).not.toContain(key);
  });

  it('passes a per-key limit through and prints JSON on request', async () => {
    const { stores } = await dataDir();
    const request = await stores.keyRequests.createKeyRequest(draft);
    const json = JSON.parse(await approveRequest(stores, request.id, { json: true, limit: 120 }));
    expect(json.request).toMatchObject({ id: request.id, status: 'approved', key_id: json.key_id });
    expect((await stores.keys.getApiKey(json.key_id))?.rate_limit).toBe(120);
  });

  it('refuses to decide a request twice or one that does not exist', async () => {
    const { stores } = await dataDir();
    const request = await stores.keyRequests.createKeyRequest(draft);
    expect(await rejectRequest(stores, request.id, {})).toContain(`Rejected ${request.id} (Kavir Analytics)`);
    await expect(approveRequest(stores, request.id, {})).rejects.toThrow(
      `request ${request.id} is already rejected`,
    );
    await expect(rejectRequest(stores, 'req_000000000000', {})).rejects.toThrow(
      'no key request has id "req_000000000000"',
    );
    expect(await stores.keys.listApiKeys()).toEqual([]);
  });
});

describe('nerkh requests (the command)', () => {
  it('lists, approves and rejects in a data directory, exiting non-zero with a one-line reason on failure', async () => {
    const { dir, stores } = await dataDir();
    const first = await stores.keyRequests.createKeyRequest(draft);
    const second = await stores.keyRequests.createKeyRequest({ ...draft, org: 'Other Org' });

    const listed = await nerkh(dir, 'requests', 'list', '--json');
    expect(listed.code).toBe(0);
    expect(
      JSON.parse(listed.stdout)
        .requests.map((r: { id: string }) => r.id)
        .sort(),
    ).toEqual([first.id, second.id].sort());

    const approved = await nerkh(dir, 'requests', 'approve', first.id);
    expect(approved.code).toBe(0);
    expect(approved.stdout).toMatch(/^Approved req_[0-9a-f]{12} \(Kavir Analytics\); issued key key_/);
    expect(approved.stdout.trim().split('\n').at(-1)).toMatch(/^nerkh_/);

    await rejectRequest(stores, second.id, {});
    const again = await nerkh(dir, 'requests', 'approve', second.id);
    expect(again.code).not.toBe(0);
    expect(again.stderr.trim().split('\n')).toEqual([`nerkh: request ${second.id} is already rejected`]);

    const help = await nerkh(dir, 'requests', '--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('approve [options] <id>');
  });
});
