// The other service an operator might deploy: Express with express-rate-limit and its default
// in-memory store (a fixed window per key), sending the bytes nerkh sends behind the same key check
// (SHA-256 of X-API-Key looked up in a map of the issued keys; 401 without a key, 403 for an
// unknown one), and one pino access-log line per request written asynchronously through
// sonic-boom (pino.destination), as nerkh writes its own.
// Settings: see peer-settings.mjs (PEER_REDIS_URL is not used). Usage: node peer-express-server.mjs
import express from 'express';
import { rateLimit } from 'express-rate-limit';
import { pino } from 'pino';
import { checkKey, peerSettings, responseHeaders } from './peer-settings.mjs';

const settings = peerSettings();
const logger = pino(pino.destination({ dest: settings.logFile, sync: false }));
const app = express();

app.use((request, response, next) => {
  const startedAt = performance.now();
  response.once('finish', () => {
    logger.info(
      {
        method: request.method,
        url: request.originalUrl,
        status: response.statusCode,
        duration_ms: performance.now() - startedAt,
        ip: request.ip,
        key_id: request.keyId,
      },
      'request',
    );
  });
  next();
});

app.use((request, response, next) => {
  const { keyId, refusal } = checkKey(settings.keyIds, request.headers['x-api-key']);
  if (refusal !== undefined) {
    response.status(refusal.status).set(refusal.headers).send(refusal.body);
    return;
  }
  request.keyId = keyId;
  next();
});

app.use(
  rateLimit({
    windowMs: settings.windowMs,
    limit: settings.limit,
    keyGenerator: (request) => request.keyId,
  }),
);

app.get('/v1/rates', (_request, response) => {
  // With the ETag set, Express sends it instead of hashing the body for one.
  response.set(responseHeaders).send(settings.body);
});

const server = app.listen(settings.port, '127.0.0.1', (error) => {
  if (error) throw error;
  process.stdout.write('listening\n');
});
process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  // Keep-alive connections from the load generator would hold close() open.
  server.closeAllConnections();
});
