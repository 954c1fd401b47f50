import { fileURLToPath } from 'node:url';
import type { StaticServer } from './nginx.ts';
import { startNodeServer } from './node-server.ts';

/** The services an operator would otherwise deploy (see each script's opening comment). */
const peerScripts = {
  fastify: fileURLToPath(new URL('./peer-fastify-server.mjs', import.meta.url)),
  express: fileURLToPath(new URL('./peer-express-server.mjs', import.meta.url)),
};

export type PeerFramework = keyof typeof peerScripts;

export interface PeerOptions {
  port: number;
  /** The bytes to send on `GET /v1/rates`. */
  bodyFile: string;
  /** The keys it accepts, one a line: the load generator's keys file. */
  keysFile: string;
  /** Requests per key per window. */
  limit: number;
  windowMs: number;
  /** Where its access log goes. */
  logFile: string;
  /** Its limit in Redis (Fastify only), every key it writes starting with `prefix`; else in memory. */
  redis?: { url: string; prefix: string };
  cpu?: number;
}

export function startPeer(framework: PeerFramework, options: PeerOptions): Promise<StaticServer> {
  if (options.redis && framework !== 'fastify') throw new Error(`the ${framework} peer has no Redis store`);
  return startNodeServer(`${framework} peer`, peerScripts[framework], [], {
    port: options.port,
    ...(options.cpu === undefined ? {} : { cpu: options.cpu }),
    env: {
      PEER_PORT: String(options.port),
      PEER_BODY_FILE: options.bodyFile,
      PEER_KEYS_FILE: options.keysFile,
      PEER_LIMIT: String(options.limit),
      PEER_WINDOW_MS: String(options.windowMs),
      PEER_LOG_FILE: options.logFile,
      PEER_REDIS_URL: options.redis?.url ?? '',
      PEER_REDIS_PREFIX: options.redis?.prefix ?? '',
    },
  });
}

/**
 * The Redis key under which the Fastify peer counts the key on line `line` (from 0) of its keys
 * file: @fastify/rate-limit's Redis store writes `<nameSpace><keyGenerator's value>`, and the
 * peer names keys `key_<line>` (peer-settings.mjs).
 */
export function peerRedisKey(prefix: string, line: number): string {
  return `${prefix}key_${line}`;
}
