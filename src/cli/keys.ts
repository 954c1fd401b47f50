import { type Command, InvalidArgumentError } from 'commander';
import { loadConfig } from '../config.ts';
import { issueApiKey } from '../keys/issue-key.ts';
import type { ApiKeyRecord } from '../store/api-key-record.ts';
import type { KeyDayUsage } from '../store/key-usage.ts';
import { openStore } from '../store/open-store.ts';
import type { OpenedStore } from '../store/types.ts';
import { table, terminalSafe, terminalSafeJson } from './terminal-output.ts';

/** A key as operators see it: everything but the hash (the key itself is never stored). */
type ListedKey = Omit<ApiKeyRecord, 'hash'> & { status: 'active' | 'revoked' | 'expired' };

function listed(record: ApiKeyRecord, nowMs = Date.now()): ListedKey {
  const { hash: _hash, ...rest } = record;
  const status =
    record.revoked_at !== null
      ? 'revoked'
      : record.expires_at !== null && Date.parse(record.expires_at) <= nowMs
        ? 'expired'
        : 'active';
  return { ...rest, status };
}

function parseLimit(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 1_000_000) {
    throw new InvalidArgumentError('must be a whole number of requests from 1 to 1000000');
  }
  return Number(value);
}

function parseExpiry(value: string): string {
  if (Number.isNaN(Date.parse(value)))
    throw new InvalidArgumentError('must be an ISO 8601 date or date-time');
  return new Date(value).toISOString();
}

/** Days `nerkh keys usage` shows at most: ten years. */
const maxUsageDays = 3660;

function parseDays(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > maxUsageDays) {
    throw new InvalidArgumentError(`must be a whole number of days from 1 to ${maxUsageDays}`);
  }
  return Number(value);
}

/** The first UTC day (`YYYY-MM-DD`) of the last `days` days, today included. */
function firstDayOf(days: number, nowMs = Date.now()): string {
  return new Date(nowMs - (days - 1) * 86_400_000).toISOString().slice(0, 10);
}

/** One key's usage on one day, as `nerkh keys usage` shows it. */
interface UsageRow {
  key_id: string;
  org: string;
  day: string;
  admitted: number;
  refused: number;
}

/** Rows grouped by key (in the order keys were issued), each key's days oldest first. */
function usageRows(usage: readonly KeyDayUsage[], records: readonly ApiKeyRecord[]): UsageRow[] {
  const order = new Map(records.map((record, index) => [record.id, index]));
  const orgOf = new Map(records.map((record) => [record.id, record.org]));
  return [...usage]
    .sort((a, b) => (order.get(a.keyId) ?? 0) - (order.get(b.keyId) ?? 0) || a.day.localeCompare(b.day))
    .map((entry) => ({
      key_id: entry.keyId,
      org: orgOf.get(entry.keyId) ?? '',
      day: entry.day,
      admitted: entry.admitted,
      refused: entry.refused,
    }));
}

function totalOf(rows: readonly UsageRow[]): { admitted: number; refused: number } {
  let admitted = 0;
  let refused = 0;
  for (const row of rows) {
    admitted += row.admitted;
    refused += row.refused;
  }
  return { admitted, refused };
}

/** The usage table: each key's days, its total, and the total of every key when there are several. */
function usageTable(rows: readonly UsageRow[]): string {
  const lines: string[][] = [['ID', 'ORG', 'DAY', 'ADMITTED', 'REFUSED']];
  const keyIds = [...new Set(rows.map((row) => row.key_id))];
  for (const keyId of keyIds) {
    const own = rows.filter((row) => row.key_id === keyId);
    for (const row of own)
      lines.push([row.key_id, row.org, row.day, String(row.admitted), String(row.refused)]);
    const total = totalOf(own);
    lines.push([keyId, own[0]?.org ?? '', 'total', String(total.admitted), String(total.refused)]);
  }
  if (keyIds.length > 1) {
    const total = totalOf(rows);
    lines.push(['all keys', '', 'total', String(total.admitted), String(total.refused)]);
  }
  return table(lines);
}

/** Opens the store in NERKH_DATA_DIR for one command; SQLite WAL lets this run beside a server. */
async function withKeyStore<T>(work: (store: OpenedStore) => Promise<T>): Promise<T> {
  const store = await openStore(loadConfig());
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

const print = (line: string) => process.stdout.write(`${line}\n`);

/**
 * `nerkh keys issue|list|usage|revoke` (docs/architecture.md#keys, docs/operations.md#usage-per-key). Keys are issued by hand to known organisations;
 * the plain key is printed once at issue and never again. Works while servers run on the same
 * data directory: they pick up issues and revocations within seconds.
 */
export function registerKeys(program: Command): void {
  const keys = program.command('keys').description('issue, list and revoke API keys; show their usage');

  keys
    .command('issue')
    .description('issue a new API key and print it once')
    .requiredOption('--org <org>', 'organisation the key is issued to')
    .requiredOption('--purpose <purpose>', 'what the key is for, as the requester stated it')
    .option('--contact <contact>', 'who to reach about the key (e-mail or name)')
    .option('--limit <n>', 'requests per rate window for this key (default NERKH_RATE_LIMIT)', parseLimit)
    .option('--expires <date>', 'ISO 8601 date-time after which the key stops working', parseExpiry)
    .option('--json', 'print one JSON object (id, key, prefix, org, ...)')
    .action(
      async (options: {
        org: string;
        purpose: string;
        contact?: string;
        limit?: number;
        expires?: string;
        json?: boolean;
      }) => {
        const { record, key } = await withKeyStore((store) =>
          issueApiKey(store.keys, {
            org: options.org,
            purpose: options.purpose,
            contact: options.contact ?? null,
            rateLimit: options.limit ?? null,
            expiresAt: options.expires ?? null,
          }),
        );
        if (options.json) {
          print(terminalSafeJson({ ...listed(record), key }));
          return;
        }
        print(
          terminalSafe(
            `Issued ${record.id} to ${record.org}${record.rate_limit ? ` (limit ${record.rate_limit})` : ''}.`,
          ),
        );
        print(key);
        print('Store this key now: only its hash is kept, so it cannot be shown again.');
      },
    );

  keys
    .command('list')
    .description('list issued keys (prefix only; never the key or its hash)')
    .option('--json', 'print one JSON object: {"keys": [...]}')
    .action(async (options: { json?: boolean }) => {
      const records = await withKeyStore((store) => store.keys.listApiKeys());
      const rows = records.map((record) => listed(record));
      if (options.json) {
        print(terminalSafeJson({ keys: rows }));
        return;
      }
      if (rows.length === 0) {
        print('No keys issued yet. Issue one with: nerkh keys issue --org ORG --purpose PURPOSE');
        return;
      }
      print(
        table([
          ['ID', 'PREFIX', 'ORG', 'STATUS', 'LIMIT', 'CREATED', 'LAST USED'],
          ...rows.map((row) => [
            row.id,
            `${row.prefix}…`,
            row.org,
            row.status,
            row.rate_limit === null ? 'default' : String(row.rate_limit),
            row.created_at,
            row.last_used_at ?? 'never',
          ]),
        ]),
      );
    });

  keys
    .command('usage')
    .description(
      'requests per key per UTC day: admitted, and refused by the rate limit (429). Running servers write their counts every 30 s and at shutdown',
    )
    .argument('[id]', 'one key, as shown by `nerkh keys list` (key_…); every key when left out')
    .option('--days <n>', 'the last N UTC days, today included', parseDays, 7)
    .option('--json', 'print one JSON object: {"since", "days", "usage": [...], "total"}')
    .action(async (id: string | undefined, options: { days: number; json?: boolean }) => {
      const since = firstDayOf(options.days);
      const { records, usage } = await withKeyStore(async (store) => {
        const records = await store.keys.listApiKeys();
        if (id !== undefined && !records.some((record) => record.id === id)) {
          throw new Error(`no key has id "${terminalSafe(id)}"; see nerkh keys list`);
        }
        const query = id === undefined ? { since } : { keyId: id, since };
        return { records, usage: await store.keys.apiKeyUsage(query) };
      });
      const rows = usageRows(usage, records);
      if (options.json) {
        print(terminalSafeJson({ since, days: options.days, usage: rows, total: totalOf(rows) }));
        return;
      }
      const span = `the last ${options.days} UTC day${options.days === 1 ? '' : 's'} (since ${since})`;
      if (rows.length === 0) {
        print(`No requests recorded${id === undefined ? '' : ` for ${id}`} in ${span}.`);
        return;
      }
      print(`Requests per key in ${span}; running servers write their counts every 30 s.`);
      print(usageTable(rows));
    });

  keys
    .command('revoke')
    .description('revoke a key; running servers refuse it within 5 seconds')
    .argument('<id>', 'key id as shown by `nerkh keys list` (key_…)')
    .option('--json', 'print one JSON object: the revoked key')
    .action(async (id: string, options: { json?: boolean }) => {
      const record = await withKeyStore((store) => store.keys.revokeApiKey(id));
      if (record === null) throw new Error(`no key has id "${terminalSafe(id)}"; see nerkh keys list`);
      if (options.json) {
        print(terminalSafeJson(listed(record)));
        return;
      }
      print(
        terminalSafe(
          `Revoked ${record.id} (${record.org}) at ${record.revoked_at}; running servers refuse it within 5 seconds.`,
        ),
      );
    });
}
