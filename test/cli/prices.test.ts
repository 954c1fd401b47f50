import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import type { CollectorStatus } from '../../src/store/collector-status.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { OpenedStore } from '../../src/store/types.ts';
import { runCli } from '../support/run-cli.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A data directory whose collector report holds SHIB from Nobitex in toman, as a running collector writes it. */
async function dataDirHolding(reportedAt = new Date()): Promise<{ dir: string; store: OpenedStore }> {
  const dir = mkdtempSync(join(tmpdir(), 'nerkh-cli-prices-'));
  const store = await openStore(loadConfig({ NERKH_DATA_DIR: dir }));
  cleanups.push(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const status: CollectorStatus = {
    reported_at: reportedAt.toISOString(),
    refresh_seconds: 600,
    sources: [],
    held: [
      {
        symbol: 'SHIB',
        currency: 'toman',
        source: 'nobitex',
        price: 2309.2,
        reference: 2.3092,
        reason: 'own-price',
        since: '2026-11-29T06:00:00.000Z',
        served_by: 'binance',
      },
    ],
  };
  await store.snapshots.putCollectorStatus(status);
  return { dir, store };
}

const prices = (dir: string, ...args: string[]) => runCli(['prices', ...args], { NERKH_DATA_DIR: dir });

describe('nerkh prices', () => {
  it('lists what is held, accepts it with the operator and reason, and lists the audit trail', async () => {
    const { dir, store } = await dataDirHolding();
    const held = await prices(dir, 'held');
    expect(held.code).toBe(0);
    expect(held.stdout).toMatch(/^SYMBOL\s+CURRENCY\s+SOURCE\s+HELD PRICE\s+FACTOR/);
    expect(held.stdout).toMatch(
      /SHIB\s+toman\s+nobitex\s+2309\.2\s+1000×\s+its last price\s+2\.3092\s+2026-11-29T06:00:00\.000Z\s+binance/,
    );

    const accepted = await prices(
      dir,
      'accept',
      'shib',
      '--source',
      'nobitex',
      '--reason',
      'Nobitex now quotes SHIB per coin',
      '--operator',
      'sara',
    );
    expect(accepted.stderr).toBe('');
    expect(accepted.code).toBe(0);
    expect(accepted.stdout).toContain(
      "Accepted nobitex's SHIB price in toman, 2309.2 (1000× its last accepted price 2.3092), as acceptance 1 by sara.",
    );
    expect(await store.snapshots.priceAcceptances({})).toEqual([
      expect.objectContaining({
        id: 1,
        symbol: 'SHIB',
        currency: 'toman',
        source: 'nobitex',
        price: 2309.2,
        operator: 'sara',
        reason: 'Nobitex now quotes SHIB per coin',
      }),
    ]);
    const trail = await prices(dir, 'accepted', '--json');
    expect(JSON.parse(trail.stdout).acceptances).toEqual([
      expect.objectContaining({ id: 1, symbol: 'SHIB', operator: 'sara' }),
    ]);
  });

  it.each([
    [['accept', 'BTC', '--source', 'nobitex', '--reason', 'x'], /BTC from nobitex is not held now/],
    [['accept', 'SHIB', '--source', 'binance', '--reason', 'x'], /SHIB from binance is not held now/],
    [['accept', 'SHIB', '--source', 'nobitex'], /required option '--reason <text>' not specified/],
    [['accept', 'SHIB', '--source', 'nobitex', '--reason', '  '], /must say why/],
    [
      ['accept', 'SHIB', '--source', 'nobitex', '--currency', 'rial', '--reason', 'x'],
      /Allowed choices are usdt, toman/,
    ],
    [['accepted', '--days', '0'], /must be a whole number of days/],
  ])('refuses %j with a one-line reason and exit 1, recording nothing', async (args, reason) => {
    const { dir, store } = await dataDirHolding();
    const result = await prices(dir, ...args);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(reason);
    expect(await store.snapshots.priceAcceptances({})).toEqual([]);
  });

  it("warns that the collector's report is old", async () => {
    const { dir } = await dataDirHolding(new Date(Date.now() - 5 * 60_000));
    const held = await prices(dir, 'held');
    const warning = held.stdout.split('\n')[0] ?? '';
    expect(warning).toMatch(
      /^Warning: the collector last reported at \S+, (\d+) s ago; it may not be running\.$/,
    );
    expect(Number(/(\d+) s ago/.exec(warning)?.[1])).toBeGreaterThanOrEqual(300);
  });

  it('says so when nothing is held or nothing was accepted', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nerkh-cli-prices-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    expect((await prices(dir, 'held')).stdout).toBe(
      'No collector has reported yet: nothing is known to be held.\n',
    );
    expect((await prices(dir, 'accepted')).stdout).toMatch(/^No price was accepted since /);
  });

  it('has help text on every command', async () => {
    for (const command of [[], ['held'], ['accept'], ['accepted']]) {
      const help = await runCli(['prices', ...command, '--help'], {});
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(/^Usage: nerkh prices/);
    }
  });
});
