/**
 * Nobitex's market codes that are not the catalog symbol, and the markets that price more than one
 * coin (docs/sources.md, "Nobitex", "The unit of a market"). Nobitex names a bundle in its code:
 * `100k_floki` is 100 000 FLOKI, `1m_pepe` a million PEPE, `1b_babydoge` a billion BABYDOGE, as
 * its own market list writes them (`100K_FLOKIIRT`, `1M_PEPEIRT`, `1B_BABYDOGEIRT`; Nobitex API
 * docs, repository `nobitex/docs-api`, `source/includes/_symbols.md`). One market does not say it:
 * `shib`, whose price is that of a thousand SHIB, and which Nobitex has since listed as `1k_shib`.
 */

/** Catalog symbols whose Nobitex market has another code (the docs' list, and `1k_bonk`). */
export const NOBITEX_CODES: Readonly<Record<string, string>> = {
  PEPE: '1m_pepe',
  FLOKI: '100k_floki',
  BONK: '1k_bonk',
  BTT: '1m_btt',
  NFT: '1m_nft',
  BABYDOGE: '1b_babydoge',
};

/** Codes whose market prices a bundle its code does not name. */
const UNNAMED_BUNDLES: Readonly<Record<string, number>> = { shib: 1_000 };

/** A code whose market Nobitex also answers under a newer code of the same bundle. */
export const NOBITEX_RENAMED: Readonly<Record<string, string>> = { shib: '1k_shib' };

const BUNDLE = /^(\d{1,4})([kmb])_[a-z0-9]+$/;
const MULTIPLIER = { k: 1_000, m: 1_000_000, b: 1_000_000_000 } as const;

/** How many coins one quote of the Nobitex market `code` prices: 1 for most. */
export function nobitexCoinsPerQuote(code: string): number {
  const named = BUNDLE.exec(code);
  if (named) return Number(named[1]) * MULTIPLIER[named[2] as keyof typeof MULTIPLIER];
  return UNNAMED_BUNDLES[code] ?? 1;
}
