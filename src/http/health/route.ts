import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { problemResponse } from '../../web/error-catalog.ts';
import type { HealthReport } from '../../web/health-report.ts';
import { HealthSchema } from '../../web/health-report.ts';

interface HealthRouteOptions {
  /** The service's health right now (./current-health.ts). */
  health(): Promise<HealthReport>;
}

const healthContentType = 'application/health+json';

/**
 * `GET /v1/health` (alias `/health`, content/docs.md "GET /v1/health"): no key, never cached. The body follows
 * draft-inadarei-api-health-check; 503 means the rates must not be relied on.
 */
export const healthRoutes: FastifyPluginAsyncTypebox<HealthRouteOptions> = async (app, options) => {
  const schema = {
    summary: 'Service status and data freshness',
    operationId: 'getHealth',
    description:
      'Check before relying on a rate. status pass: fresh data, all sources up; warn: rates still served but a source is degraded, the last snapshot commit failed or the data is getting old; fail: no data, or data older than 3 refresh intervals (HTTP 503). Judge a single currency by its own as_of.',
    tags: ['health'],
    // Public: no key (OpenAPI 3.1 §4.8.10.1, an empty list removes any requirement).
    security: [],
    response: {
      200: {
        description: 'pass or warn',
        headers: { 'Cache-Control': { type: 'string', const: 'no-store' } },
        content: { [healthContentType]: { schema: HealthSchema } },
      },
      503: {
        description: 'fail: the rates must not be relied on',
        headers: { 'Cache-Control': { type: 'string', const: 'no-store' } },
        content: { [healthContentType]: { schema: HealthSchema } },
      },
      '4xx': problemResponse('method-not-allowed, request-header-fields-too-large or another request error'),
    },
  };
  const handler = async (_request: FastifyRequest, reply: FastifyReply) => {
    const report = await options.health();
    return reply
      .code(report.httpStatus)
      .header('Content-Type', healthContentType)
      .header('Cache-Control', 'no-store')
      .send(JSON.stringify(report.body));
  };
  app.get('/v1/health', { schema }, handler);
  app.get('/health', { schema: { ...schema, hide: true } }, handler);
};
