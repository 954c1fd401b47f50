import { hash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * API key format (docs/architecture.md#keys): `nerkh_<body>_<checksum>`.
 * - body: 22 base62 characters from the CSPRNG, 22 × log2(62) ≈ 131 bits of entropy;
 * - checksum: CRC32 of the body in 6 base62 characters, so a mistyped or invented key is refused
 *   without a store lookup, and secret scanners can tell a real key from random text (the scheme
 *   GitHub uses for its tokens: https://github.blog/2021-04-05-behind-githubs-new-authentication-token-formats/).
 * Only the SHA-256 of the key is stored. A salt or slow hash would add nothing: with 131 random
 * bits there is no dictionary to attack, and the lookup must stay O(1) by hash.
 */
const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const bodyLength = 22;
const checksumLength = 6;
const apiKeyPrefix = 'nerkh_';
const keyPattern = /^nerkh_([0-9A-Za-z]{22})_([0-9A-Za-z]{6})$/;
/** Every key has this many characters: anything else is refused before it is even hashed. */
export const apiKeyLength = apiKeyPrefix.length + bodyLength + 1 + checksumLength;
/** Characters of the key shown in listings: the prefix and 6 of the body (36 bits, not enough to guess with). */
const displayLength = apiKeyPrefix.length + 6;

function base62(value: number, width: number): string {
  let text = '';
  let rest = value;
  for (let index = 0; index < width; index++) {
    text = alphabet[rest % 62] + text;
    rest = Math.floor(rest / 62);
  }
  return text;
}

function checksumOf(body: string): string {
  return base62(crc32(body), checksumLength);
}

/** Uniform random base62: bytes ≥ 248 (= 4 × 62) are discarded so no character is more likely. */
function randomBase62(length: number): string {
  let text = '';
  while (text.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && text.length < length) text += alphabet[byte % 62];
    }
  }
  return text;
}

export function generateApiKey(): string {
  const body = randomBase62(bodyLength);
  return `${apiKeyPrefix}${body}_${checksumOf(body)}`;
}

/** True when `key` has the nerkh shape and its checksum matches; no store is consulted. */
export function isWellFormedApiKey(key: string): boolean {
  const match = keyPattern.exec(key);
  return match !== null && checksumOf(match[1] as string) === match[2];
}

/** Anything shaped like a key within a text, the checksum unchecked: such text is never logged. */
const keyInText = /nerkh_[0-9A-Za-z]{22}_[0-9A-Za-z]{6}/;

/** True when `text` holds something shaped like a key (e.g. a client put its key in a request id). */
export function containsApiKeyShape(text: string): boolean {
  return keyInText.test(text);
}

/** What the store keeps instead of the key: lowercase hex SHA-256 (one-shot, no Hash object per call). */
export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}

/**
 * The same SHA-256 as 32 raw bytes in a one-byte string: what the key cache is keyed by, at half
 * the memory of the hex form (it holds up to one entry per key in use).
 */
export function apiKeyDigest(key: string): string {
  return hash('sha256', key, 'binary');
}

/** The stored (hex) form of an `apiKeyDigest`. */
export function hashOfDigest(digest: string): string {
  return Buffer.from(digest, 'latin1').toString('hex');
}

export function displayPrefix(key: string): string {
  return key.slice(0, displayLength);
}

/** Operator-facing key id: `key_` and 12 lowercase hex digits (48 random bits). */
export function newApiKeyId(): string {
  return `key_${randomBytes(6).toString('hex')}`;
}
