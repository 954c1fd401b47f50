import type { QuoteCurrency } from '../feeds/types.ts';

/**
 * The operator's word that a held price is right (docs/operations.md#held-prices): `nerkh prices
 * accept` records it, the running collector applies it to the held level it names, and the record
 * stays as the audit trail of who accepted which price, when and why.
 */
export interface PriceAcceptanceDraft {
  symbol: string;
  currency: QuoteCurrency;
  source: string;
  /** The held level the operator saw and accepts; a level within the deviation limit of it is applied. */
  price: number;
  /** Who accepted it: the operator's name as given, else the account that ran the command. */
  operator: string;
  reason: string;
}

export interface PriceAcceptance extends PriceAcceptanceDraft {
  id: number;
  /** When it was recorded (ISO 8601). */
  accepted_at: string;
}
