/**
 * Validation of a Nobitex `GET /market/stats` body (https://apidocs.nobitex.ir, «آمار بازار»):
 * `stats["usdt-rls"].bestSell`, the lowest sell order — what a buyer pays, the side nerkh
 * publishes — is a decimal string in rial; it becomes toman via `tomanFromRial`. Every field
 * nerkh uses is checked; anything else is ignored.
 */
import { tomanFromRial } from '../domain/pricing.ts';

type TetherStatsResult = { kind: 'quote'; toman: number } | { kind: 'rejected'; reason: string };

const MARKET = 'usdt-rls';
const DECIMAL = /^-?\d+(?:\.\d+)?$/;

function rejected(reason: string): TetherStatsResult {
  return { kind: 'rejected', reason };
}

/** Validates a `/market/stats` body and converts `usdt-rls` bestSell from rial to toman. */
export function parseTetherStats(text: string): TetherStatsResult {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return rejected('invalid-json');
  }
  if (typeof body !== 'object' || body === null) return rejected('not-an-object');
  const { status, stats } = body as Record<string, unknown>;
  if (status !== 'ok') return rejected('status-not-ok');
  const market =
    typeof stats === 'object' && stats !== null ? (stats as Record<string, unknown>)[MARKET] : undefined;
  if (typeof market !== 'object' || market === null) return rejected('market-missing');
  const { isClosed, bestSell } = market as Record<string, unknown>;
  if (isClosed === true) return rejected('market-closed');
  if (bestSell === undefined || bestSell === null) return rejected('best-sell-missing');
  if (typeof bestSell !== 'string') return rejected('best-sell-not-a-string');
  if (!DECIMAL.test(bestSell)) return rejected('best-sell-not-a-number');
  const rial = Number(bestSell);
  if (!Number.isFinite(rial)) return rejected('best-sell-not-a-number');
  const toman = tomanFromRial(rial);
  if (toman <= 0) return rejected('best-sell-not-positive');
  return { kind: 'quote', toman };
}
