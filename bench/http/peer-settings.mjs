// What the two peer servers (peer-fastify-server.mjs, peer-express-server.mjs) share: their settings,
// read from the environment that bench/http/peers.ts sets, the key map, the response header
// fields and the two problem bodies of the key check.
import { hash } from 'node:crypto';
import { readFileSync } from 'node:fs';

function required(name) {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`${name} is not set`);
  return value;
}

/**
 * PEER_PORT, PEER_BODY_FILE, PEER_KEYS_FILE (one key a line, as the load generator reads it),
 * PEER_LIMIT and PEER_WINDOW_MS (requests per key per window), PEER_LOG_FILE (the access log), and
 * for a Redis store PEER_REDIS_URL with PEER_REDIS_PREFIX (the start of every key it writes).
 * A key's id is `key_<its line number, from 0>`: the limit is counted under it.
 */
export function peerSettings() {
  /** Lowercase hex SHA-256 of a key → its id: what nerkh's key store keeps, a hash and not the key. */
  const keyIds = new Map();
  const lines = readFileSync(required('PEER_KEYS_FILE'), 'utf8').split('\n');
  for (const [index, key] of lines.entries()) {
    if (key !== '') keyIds.set(hash('sha256', key, 'hex'), `key_${index}`);
  }
  return {
    port: Number(required('PEER_PORT')),
    body: readFileSync(required('PEER_BODY_FILE')),
    keyIds,
    limit: Number(required('PEER_LIMIT')),
    windowMs: Number(required('PEER_WINDOW_MS')),
    logFile: required('PEER_LOG_FILE'),
    redisUrl: process.env.PEER_REDIS_URL || null,
    redisPrefix: process.env.PEER_REDIS_PREFIX || null,
  };
}

/** The key's id, or null for a key the map does not hold (a repeated header is not one key). */
function keyIdOf(keyIds, presented) {
  const key = Array.isArray(presented) ? presented.join(', ') : presented;
  return keyIds.get(hash('sha256', key, 'hex')) ?? null;
}

/**
 * The key check both peers run, as nerkh answers it: `{ keyId }` for a known key, else
 * `{ refusal }` with the status, header fields and RFC 9457 problem body to send (a 401 with
 * WWW-Authenticate, RFC 9110 §15.5.2, without a key; a 403 for an unknown one).
 */
export function checkKey(keyIds, presented) {
  if (presented === undefined || presented === '') return { refusal: missingKey };
  const keyId = keyIdOf(keyIds, presented);
  return keyId === null ? { refusal: invalidKey } : { keyId };
}

/** The fields the node:http floor sends with the same body. */
export const responseHeaders = {
  'content-type': 'application/json',
  etag: '"peer"',
  'cache-control': 'private, max-age=600',
};

const problemType = 'application/problem+json';

const missingKey = {
  status: 401,
  headers: { 'content-type': problemType, 'www-authenticate': 'ApiKey realm="peer", header="X-API-Key"' },
  body: JSON.stringify({
    type: 'about:blank',
    title: 'Missing API key',
    status: 401,
    detail: 'Send your API key in the X-API-Key header.',
  }),
};

const invalidKey = {
  status: 403,
  headers: { 'content-type': problemType },
  body: JSON.stringify({
    type: 'about:blank',
    title: 'Invalid API key',
    status: 403,
    detail: 'The API key is not valid.',
  }),
};
