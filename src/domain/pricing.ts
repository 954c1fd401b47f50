/**
 * Pure pricing rules (docs/architecture.md#data). Sources quote the ask side (what a user pays); nerkh
 * publishes that side only, never a bid, spread or buy rate.
 */

/**
 * Some sources quote in rial; the service publishes toman. 1 toman = 10 rial, exactly: a coin
 * worth a few rial keeps its fraction of a toman until a published value is rounded. Rounded to
 * 15 significant digits, which a double always holds, so 27.4 rial is 2.74 toman, not the
 * 2.7399999999999998 the binary division gives.
 */
export function tomanFromRial(rial: number): number {
  return Number((rial / 10).toPrecision(15));
}

/** usdt_irt is published as a whole number of toman: to the nearest, halves up. */
export function wholeToman(toman: number): number {
  return Math.round(toman);
}

/**
 * Sell rate in tether: the ask with the operator's markup. Rounded to 12 significant digits so
 * a markup never publishes binary-float noise (0.1 × 1.005 → 0.1005, not 0.10049999999999999);
 * with no markup the ask is published exactly as quoted.
 */
export function sellUsdtFromAsk(ask: number, markupPct: number): number {
  if (markupPct === 0) return ask;
  return Number((ask * (1 + markupPct / 100)).toPrecision(12));
}

/**
 * Sell rate in toman: round(sell_usdt × usdt_irt). Null when the tether rate is unknown, or
 * when the product rounds to 0 (a coin worth less than half a toman has no meaningful toman rate).
 */
export function sellIrtFrom(sellUsdt: number, usdtIrt: number | null): number | null {
  if (usdtIrt === null) return null;
  const toman = Math.round(sellUsdt * usdtIrt);
  return toman > 0 ? toman : null;
}

/**
 * A positive, finite price; anything else is a bad tick. `maxJumpPct` guards against absurd
 * moves relative to the last accepted price (a fat-finger or a corrupt frame).
 */
export function priceRejection(price: number, previous: number | null, maxJumpPct: number): string | null {
  if (!Number.isFinite(price)) return 'not-a-number';
  if (price <= 0) return 'not-positive';
  if (previous !== null && previous > 0) {
    const jumpPct = (Math.abs(price - previous) / previous) * 100;
    if (jumpPct > maxJumpPct) return 'absurd-jump';
  }
  return null;
}

/**
 * A toman ask with the operator's markup, unrounded: sell_irt of a coin its source quotes in toman
 * is this rounded, and a sell_usdt derived from it is taken from this, not from the rounding.
 */
export function tomanWithMarkup(toman: number, markupPct: number): number {
  return markupPct === 0 ? toman : toman * (1 + markupPct / 100);
}

/** sell_irt of a coin quoted in toman: the whole toman; null when it rounds to 0, as for derived prices. */
export function sellIrtOfToman(toman: number): number | null {
  const whole = Math.round(toman);
  return whole > 0 ? whole : null;
}

/**
 * sell_usdt of a coin quoted in toman by a source that quotes it in no tether: toman ÷ usdt_irt,
 * to 8 significant digits (usdt_irt, a whole toman, carries about 5 or 6).
 */
export function sellUsdtFromToman(toman: number, usdtIrt: number): number {
  return Number((toman / usdtIrt).toPrecision(8));
}
