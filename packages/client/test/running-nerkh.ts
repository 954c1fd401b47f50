import type { AddressInfo } from 'node:net';
import { buildTestApp, type TestApp, type TestAppOptions } from '../../../test/support/test-app.ts';

/**
 * A real nerkh on a local socket, built the way the service's own HTTP tests build it (in-memory
 * stores, one snapshot, one issued key, a fake clock the limiter and Cache-Control read), so the
 * client is tested against the actual routes, limiter and caching. Dev-only: the package itself
 * never imports the server.
 */
export interface RunningNerkh extends TestApp {
  baseUrl: string;
  /** Requests that reached the server's socket, by path with query (answered by any hook or route). */
  requests: string[];
  /** The status each of those requests was answered with, and whether it carried If-None-Match. */
  answers: { status: number; conditional: boolean }[];
  close(): Promise<void>;
}

export async function startNerkh(options: TestAppOptions = {}): Promise<RunningNerkh> {
  const t = await buildTestApp(options);
  const requests: string[] = [];
  const answers: RunningNerkh['answers'] = [];
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  t.app.server.on('request', (request, response) => {
    requests.push(request.url ?? '');
    response.on('finish', () =>
      answers.push({
        status: response.statusCode,
        conditional: request.headers['if-none-match'] !== undefined,
      }),
    );
  });
  const { port } = t.app.server.address() as AddressInfo;
  return { ...t, baseUrl: `http://127.0.0.1:${port}`, requests, answers, close: () => t.app.close() };
}
