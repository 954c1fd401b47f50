import { loadCatalog } from '../../src/catalog/catalog-file.ts';
import type { SnapshotDraft } from '../../src/domain/rates.ts';

/**
 * A day of snapshots of the whole bundled catalog at the default 10-minute refresh, ending at
 * `endMs`, oldest first: the coins list at its largest, a row and a sparkline per coin, as the
 * page-weight test and the Lighthouse audit need it.
 */
export function wholeCatalogDay(publicUrl: string, endMs: number): SnapshotDraft[] {
  const catalog = loadCatalog();
  const drafts: SnapshotDraft[] = [];
  for (let step = 144; step >= 0; step--) {
    const at = new Date(endMs - step * 600_000).toISOString();
    drafts.push({
      updated_at: at,
      source: 'binance+nobitex',
      usdt_irt: 61_250,
      rates: catalog.map((coin, index) => {
        const usdt = (index + 1) * 1.2345 * (1 + 0.01 * Math.sin(step / 7 + index));
        return {
          symbol: coin.symbol,
          name_fa: coin.name_fa,
          sell_usdt: usdt,
          sell_irt: Math.round(usdt * 61_250),
          change_24h: 1.23,
          as_of: at,
          url: `${publicUrl}/coins/${coin.symbol}`,
          source: 'binance',
          tether_source: 'nobitex',
        };
      }),
    });
  }
  return drafts;
}
