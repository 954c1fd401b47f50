import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import type { Logger } from '../logger.ts';
import { urlHost } from '../net/url-host.ts';
import type { ProbeResult, Probes } from './probes.ts';

export interface MetricsServer {
  /** Where Prometheus scrapes, e.g. `http://127.0.0.1:9464/metrics`. */
  url: string;
  close(): Promise<void>;
}

/** The probes' paths (docs/operations.md#probes). */
const probePaths = ['/livez', '/readyz'];

/**
 * The operations listener (NERKH_METRICS_PORT on NERKH_METRICS_HOST): `GET /metrics` in the
 * Prometheus text format, and the orchestrators' probes `/livez` and `/readyz` (probes.ts), nothing
 * else. It is a listener of its own, never a route of the public app, so the figures (routes,
 * sources, error counts) are never published to API clients, a scrape or a probe never competes
 * with the API's rate limits, and the public API keeps its two data endpoints. Plain node:http:
 * three fixed routes need no framework.
 */
export async function startMetricsServer(
  registry: Registry,
  host: string,
  port: number,
  logger: Logger,
  probes?: Probes,
): Promise<MetricsServer> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0] ?? '';
    const probe = probes === undefined || !probePaths.includes(path) ? undefined : probes;
    if (path !== '/metrics' && probe === undefined) {
      response
        .writeHead(404, { 'content-type': 'text/plain; charset=utf-8' })
        .end(`Not found: scrape /metrics${probes === undefined ? '' : '; probes at /livez and /readyz'}\n`);
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end();
      return;
    }
    if (probe !== undefined) {
      const answer = (result: ProbeResult) => {
        response.writeHead(result.ok ? 200 : 503, {
          'content-type': 'text/plain; charset=utf-8',
          'cache-control': 'no-store',
        });
        response.end(request.method === 'HEAD' ? undefined : `${result.reason}\n`);
      };
      if (path === '/livez') answer(probe.live());
      else void probe.ready().then(answer);
      return;
    }
    registry.metrics().then(
      (text) => {
        response.writeHead(200, { 'content-type': registry.contentType, 'cache-control': 'no-store' });
        response.end(request.method === 'HEAD' ? undefined : text);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'collecting metrics failed');
        response
          .writeHead(500, { 'content-type': 'text/plain; charset=utf-8' })
          .end('collecting metrics failed\n');
      },
    );
  });
  // A scrape is one short request: a client holding a connection open gets it closed.
  server.headersTimeout = 10_000;
  server.requestTimeout = 10_000;
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'EADDRINUSE'
          ? new Error(
              `metrics port ${port} on ${host} is already in use; set NERKH_METRICS_PORT to a free port`,
            )
          : error,
      );
    });
    server.listen({ host, port }, resolve);
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${urlHost(address.address)}:${address.port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
