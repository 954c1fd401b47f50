/**
 * Every server the bench measures: nginx and nerkh in every scenario; the rest in the full-list
 * one. `nerkhRedis` is nerkh with NERKH_REDIS_URL; the last three are the peers.
 */
export const serverNames = [
  'nginx',
  'nerkh',
  'floor',
  'raw',
  'nerkhRedis',
  'fastifyRedis',
  'fastify',
  'express',
] as const;
export type ServerName = (typeof serverNames)[number];

export const serverLabels: Record<ServerName, string> = {
  nginx: 'nginx',
  nerkh: 'nerkh',
  floor: 'node:http floor',
  raw: 'raw TCP (Node)',
  nerkhRedis: 'nerkh, limits in Redis',
  fastifyRedis: 'Fastify + @fastify/rate-limit, Redis store',
  fastify: 'Fastify + @fastify/rate-limit, in memory',
  express: 'Express + express-rate-limit, in memory',
};

export const isNerkh = (server: ServerName) => server === 'nerkh' || server === 'nerkhRedis';

/** The rows whose servers use Redis under load. */
export const redisRows = ['nerkhRedis', 'fastifyRedis'] as const;
export type RedisRow = (typeof redisRows)[number];
export const usesRedisUnderLoad = (server: ServerName): server is RedisRow =>
  (redisRows as readonly ServerName[]).includes(server);
