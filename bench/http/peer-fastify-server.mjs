// The service an operator would otherwise deploy: Fastify with @fastify/rate-limit, written as its
// documentation shows, sending the bytes nerkh sends behind the same key check (SHA-256 of
// X-API-Key looked up in a map of the issued keys; 401 without a key, 403 for an unknown one), a
// per-key limit, and one pino access-log line per request written asynchronously through
// sonic-boom (pino.destination), as nerkh writes its own.
// The limit's store is @fastify/rate-limit's default in-memory one, or with PEER_REDIS_URL its
// Redis store through ioredis, shared by every instance (a fixed window per key, opened by the
// key's first request: https://github.com/fastify/fastify-rate-limit#options).
// Settings: see peer-settings.mjs. Usage: node peer-fastify-server.mjs
import rateLimit from '@fastify/rate-limit';
import Fastify, { LogController } from 'fastify';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { checkKey, peerSettings, responseHeaders } from './peer-settings.mjs';

const settings = peerSettings();
const redis = settings.redisUrl === null ? null : new Redis(settings.redisUrl);

const app = Fastify({
  loggerInstance: pino(pino.destination({ dest: settings.logFile, sync: false })),
  // Its built-in request logging writes two lines per request; the access log below writes one.
  logController: new LogController({ disableRequestLogging: true }),
});
app.decorateRequest('keyId', null);

// Added before the plugin, so it runs before the limit's own onRequest hook.
app.addHook('onRequest', (request, reply, done) => {
  const { keyId, refusal } = checkKey(settings.keyIds, request.headers['x-api-key']);
  if (refusal !== undefined) {
    reply.code(refusal.status).headers(refusal.headers).send(refusal.body);
    return;
  }
  request.keyId = keyId;
  done();
});

await app.register(rateLimit, {
  max: settings.limit,
  timeWindow: settings.windowMs,
  keyGenerator: (request) => request.keyId,
  ...(redis === null
    ? // Its in-memory store is an LRU of 5,000 keys by default: room for every key, so none is evicted.
      { cache: settings.keyIds.size * 2 }
    : { redis, nameSpace: settings.redisPrefix }),
});

app.addHook('onResponse', (request, reply, done) => {
  request.log.info(
    {
      method: request.method,
      url: request.url,
      status: reply.statusCode,
      duration_ms: reply.elapsedTime,
      ip: request.ip,
      key_id: request.keyId ?? undefined,
    },
    'request',
  );
  done();
});

app.get('/v1/rates', (_request, reply) => {
  reply.headers(responseHeaders).send(settings.body);
});

await app.listen({ port: settings.port, host: '127.0.0.1' });
process.stdout.write('listening\n');
process.on('SIGTERM', async () => {
  await app.close();
  await redis?.quit();
  process.exit(0);
});
