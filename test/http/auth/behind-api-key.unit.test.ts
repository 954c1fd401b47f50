import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify from 'fastify';
import { Registry } from 'prom-client';
import { describe, expect, it, onTestFinished } from 'vitest';
import { apiKeyGuard } from '../../../src/http/auth/api-key-guard.ts';
import { behindApiKey } from '../../../src/http/auth/behind-api-key.ts';
import { KeyAuthenticator } from '../../../src/keys/authenticator.ts';
import { issueApiKey } from '../../../src/keys/issue-key.ts';
import { FailedKeyThrottle } from '../../../src/limiter/failed-key-throttle.ts';
import { MemoryRateLimiter } from '../../../src/limiter/memory-limiter.ts';
import { createLogger } from '../../../src/logger.ts';
import { HttpMetrics } from '../../../src/metrics/http-metrics.ts';
import { MemoryApiKeyStore } from '../../../src/store/memory/key-store.ts';
import { installProblemHandlers } from '../../../src/web/problem-handlers.ts';
import { publicUrl } from '../../support/test-app.ts';

describe('behindApiKey', () => {
  it('puts the key check in front of a route registered inside that does nothing else about keys', async () => {
    const keys = new MemoryApiKeyStore();
    const { key } = await issueApiKey(keys, { org: 'Test Org', purpose: 'tests' });
    const authenticator = new KeyAuthenticator({ store: keys, logger: createLogger('silent') });
    const limiter = new MemoryRateLimiter({ windowMs: 60_000 });
    const failedKeys = new FailedKeyThrottle({ failures: new MemoryRateLimiter({ windowMs: 60_000 }) });
    const app = Fastify({ logger: false }).withTypeProvider<TypeBoxTypeProvider>();
    onTestFinished(async () => {
      await app.close();
      await authenticator.close();
      await Promise.all([limiter.close(), failedKeys.close()]);
    });
    app.decorateRequest('apiKeyId', null);
    installProblemHandlers(app, publicUrl);
    await app.register(behindApiKey, {
      prefix: '/v1',
      requireApiKey: apiKeyGuard({
        authenticator,
        limiter,
        failedKeys,
        defaultLimit: 60,
        windowSeconds: 60,
        failureLimit: 30,
        clock: Date.now,
        metrics: new HttpMetrics(new Registry()),
      }),
      routes: async (api) => {
        api.get('/probe', async () => 'reached');
      },
    });
    app.get('/v1/public', async () => 'open');
    await authenticator.start();

    for (const method of ['GET', 'HEAD'] as const) {
      const missing = await app.inject({ method, url: '/v1/probe' });
      expect(missing.statusCode).toBe(401);
      expect(missing.headers['www-authenticate']).toContain('X-API-Key');
    }
    expect((await app.inject({ url: '/v1/probe' })).json()).toMatchObject({ code: 'missing-api-key' });
    expect((await app.inject({ url: '/v1/probe', headers: { 'x-api-key': `${key}x` } })).statusCode).toBe(
      403,
    );
    const admitted = await app.inject({ url: '/v1/probe', headers: { 'x-api-key': key } });
    expect(admitted.statusCode).toBe(200);
    expect(admitted.body).toBe('reached');
    expect(admitted.headers.ratelimit).toBe('"default";r=59;t=60');
    // Routes outside the plugin, even under the same prefix, are not behind the check.
    expect((await app.inject({ url: '/v1/public' })).body).toBe('open');
  });
});
