import { userInfo } from 'node:os';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { loadConfig } from '../config.ts';
import type { QuoteCurrency } from '../feeds/types.ts';
import type { CollectorStatus, HeldPrice } from '../store/collector-status.ts';
import { openStore } from '../store/open-store.ts';
import type { PriceAcceptance } from '../store/price-acceptance.ts';
import type { CollectorStatusStore, PriceAcceptanceStore } from '../store/types.ts';
import { table, terminalSafe, terminalSafeJson } from './terminal-output.ts';

/**
 * `nerkh prices held|accept|accepted` (docs/operations.md#held-prices): the operator's side of the
 * price guard. A source's price a unit-sized factor away from its own last price or from the other
 * sources is held, not published; the operator who knows it is right (a redenomination, a market
 * moved to a per-coin unit) accepts it, and the acceptance is kept as the audit trail.
 */

export type PriceStores = CollectorStatusStore & PriceAcceptanceStore;

/** A collector report older than this may no longer describe what is held. */
const reportStaleMs = 60_000;

const currencyWord = (currency: QuoteCurrency) => (currency === 'usdt' ? 'tether' : 'toman');

function factorOf(held: HeldPrice): string {
  return `${Number((held.price / held.reference).toPrecision(3))}×`;
}

/** A line saying the collector's report is old, or nothing. */
function staleness(status: CollectorStatus, now: number): string[] {
  const age = now - Date.parse(status.reported_at);
  return age > reportStaleMs
    ? [
        `Warning: the collector last reported at ${status.reported_at}, ${Math.round(age / 1000)} s ago; it may not be running.`,
      ]
    : [];
}

export async function listHeld(
  stores: PriceStores,
  options: { json?: boolean },
  now = Date.now(),
): Promise<string> {
  const status = await stores.getCollectorStatus();
  const held = status?.held ?? [];
  if (options.json) return terminalSafeJson({ reported_at: status?.reported_at ?? null, held });
  if (status === null) return 'No collector has reported yet: nothing is known to be held.';
  if (held.length === 0) return [...staleness(status, now), 'No price is held.'].join('\n');
  const rows = held.map((entry) => [
    entry.symbol,
    currencyWord(entry.currency),
    entry.source,
    String(entry.price),
    factorOf(entry),
    entry.reason === 'own-price' ? 'its last price' : 'other sources',
    String(entry.reference),
    entry.since,
    entry.served_by === null || entry.served_by === entry.source ? 'last price kept' : entry.served_by,
  ]);
  return [
    ...staleness(status, now),
    table([
      ['SYMBOL', 'CURRENCY', 'SOURCE', 'HELD PRICE', 'FACTOR', 'AGAINST', 'REFERENCE', 'SINCE', 'PRICED BY'],
      ...rows,
    ]),
    'Accept one that is right with: nerkh prices accept SYMBOL --source SOURCE --reason "…"',
  ].join('\n');
}

export interface AcceptOptions {
  source: string;
  currency?: QuoteCurrency;
  reason: string;
  operator?: string;
  json?: boolean;
}

/** Records the operator's acceptance of the level `symbol` from `source` is held at now. */
export async function acceptHeld(
  stores: PriceStores,
  symbolArgument: string,
  options: AcceptOptions,
  now = new Date(),
): Promise<string> {
  const symbol = symbolArgument.toUpperCase();
  const status = await stores.getCollectorStatus();
  if (status === null) throw new Error('no collector has reported yet, so no price is known to be held');
  const matches = (status.held ?? []).filter(
    (entry) =>
      entry.symbol === symbol &&
      entry.source === options.source &&
      (options.currency === undefined || entry.currency === options.currency),
  );
  const what = terminalSafe(`${symbol} from ${options.source}`);
  if (matches.length === 0)
    throw new Error(`${what} is not held now; nerkh prices held lists the held prices`);
  if (matches.length > 1)
    throw new Error(`${what} is held in tether and in toman; say which with --currency usdt or toman`);
  const held = matches[0] as HeldPrice;
  const acceptance = await stores.recordPriceAcceptance(
    {
      symbol,
      currency: held.currency,
      source: held.source,
      price: held.price,
      operator: options.operator ?? operatorName(),
      reason: options.reason,
    },
    now,
  );
  if (options.json) return terminalSafeJson({ acceptance, held });
  return [
    ...staleness(status, now.getTime()),
    terminalSafe(
      `Accepted ${held.source}'s ${symbol} price in ${currencyWord(held.currency)}, ${held.price} (${factorOf(held)} ${held.reason === 'own-price' ? 'its last accepted price' : "the other sources' price"} ${held.reference}), as acceptance ${acceptance.id} by ${acceptance.operator}.`,
    ),
    'The collector applies it at its next health report (within seconds) and publishes it at the next snapshot; it is kept for an hour while no hold at that level is found.',
  ].join('\n');
}

export async function listAccepted(
  stores: PriceStores,
  options: { json?: boolean; days: number },
  now = Date.now(),
): Promise<string> {
  const since = new Date(now - options.days * 86_400_000).toISOString();
  const acceptances: PriceAcceptance[] = await stores.priceAcceptances({ since });
  if (options.json) return terminalSafeJson({ since, acceptances });
  if (acceptances.length === 0) return `No price was accepted since ${since}.`;
  return table([
    ['ID', 'ACCEPTED AT', 'OPERATOR', 'SYMBOL', 'CURRENCY', 'SOURCE', 'PRICE', 'REASON'],
    ...acceptances.map((entry) => [
      String(entry.id),
      entry.accepted_at,
      entry.operator,
      entry.symbol,
      currencyWord(entry.currency),
      entry.source,
      String(entry.price),
      entry.reason.replace(/\s+/g, ' '),
    ]),
  ]);
}

/** The account running the command, when the operator gives no name. */
function operatorName(): string {
  try {
    return userInfo().username || 'unknown';
  } catch {
    return 'unknown';
  }
}

/** Opens the store the configuration names for one command; SQLite WAL lets this run beside a server. */
async function withStores(work: (stores: PriceStores) => Promise<string>): Promise<void> {
  const store = await openStore(loadConfig());
  try {
    process.stdout.write(`${await work(store.snapshots)}\n`);
  } finally {
    await store.close();
  }
}

function parseReason(value: string): string {
  const reason = value.trim();
  if (reason.length === 0 || reason.length > 500)
    throw new InvalidArgumentError('must say why, in 1 to 500 characters');
  return reason;
}

function parseOperator(value: string): string {
  const name = value.trim();
  if (name.length === 0 || name.length > 100) throw new InvalidArgumentError('must be 1 to 100 characters');
  return name;
}

function parseDays(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 3650)
    throw new InvalidArgumentError('must be a whole number of days from 1 to 3650');
  return Number(value);
}

export function registerPrices(program: Command): void {
  const prices = program
    .command('prices')
    .description('see the prices the guard holds at a unit-sized level, and accept one that is right');

  prices
    .command('held')
    .description('list the prices held now (×10 or more, ÷10 or less), from the collector report')
    .option('--json', 'print one JSON object: {"reported_at", "held": [...]}')
    .action(async (options: { json?: boolean }) => {
      await withStores((stores) => listHeld(stores, options));
    });

  prices
    .command('accept')
    .description(
      'accept the level a source is held at as the coin’s price; recorded with your name and reason',
    )
    .argument('<symbol>', 'the coin, e.g. SHIB (USDT for the tether rate)')
    .requiredOption('--source <name>', 'the source whose price is held, as `nerkh prices held` shows it')
    .addOption(
      new Option('--currency <currency>', 'usdt or toman, when the coin is held in both').choices([
        'usdt',
        'toman',
      ]),
    )
    .requiredOption('--reason <text>', 'why the level is right (kept in the audit trail)', parseReason)
    .option('--operator <name>', 'who accepts it (default: the account running the command)', parseOperator)
    .option('--json', 'print one JSON object: {"acceptance": {...}, "held": {...}}')
    .action(async (symbol: string, options: AcceptOptions) => {
      await withStores((stores) => acceptHeld(stores, symbol, options));
    });

  prices
    .command('accepted')
    .description('list the acceptances recorded, oldest first: the audit trail')
    .option('--days <n>', 'how many days back (default 30)', parseDays, 30)
    .option('--json', 'print one JSON object: {"since", "acceptances": [...]}')
    .action(async (options: { json?: boolean; days: number }) => {
      await withStores((stores) => listAccepted(stores, options));
    });
}
