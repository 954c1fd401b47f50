/** An issued API key as stored: never the key itself, only its SHA-256 hash. */
export interface ApiKeyRecord {
  /** Operator-facing id, `key_` and 12 lowercase hex digits; what `nerkh keys revoke` takes. */
  id: string;
  /** First characters of the key (`nerkh_AbC123`), enough to recognise it in a list. */
  prefix: string;
  /** Lowercase hex SHA-256 of the whole key. */
  hash: string;
  org: string;
  contact: string | null;
  purpose: string;
  /** Per-key override of NERKH_RATE_LIMIT (requests per window), or null for the default. */
  rate_limit: number | null;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
}
