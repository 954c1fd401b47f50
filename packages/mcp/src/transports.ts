import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

/** stdio: how MCP hosts start local servers. stdout carries only protocol messages. */
export async function serveStdio(createServer: () => Server): Promise<void> {
  await createServer().connect(new StdioServerTransport());
}

export interface HttpEndpoint {
  url: string;
  close(): Promise<void>;
}

/**
 * Streamable HTTP at `/mcp`, stateless (a fresh MCP server per request, the SDK's pattern for
 * servers without sessions), bound to a loopback address. The SDK's Express app checks the Host
 * header of every request against localhost names, so a web page cannot reach it through DNS
 * rebinding.
 */
export async function serveHttp(
  createServer: () => Server,
  options: { host?: '127.0.0.1' | 'localhost' | '::1'; port?: number } = {},
): Promise<HttpEndpoint> {
  const host = options.host ?? '127.0.0.1';
  const app = createMcpExpressApp({ host });
  app.post(
    '/mcp',
    async (request: { body: unknown }, response: { on(event: 'close', listener: () => void): void }) => {
      const server = createServer();
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      response.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      // biome-ignore lint/suspicious/noExplicitAny: Express's request and response, as the SDK takes them.
      await transport.handleRequest(request as any, response as any, request.body);
    },
  );
  const notAllowed = (
    _request: unknown,
    response: { status(code: number): { set(name: string, value: string): { json(body: unknown): void } } },
  ) =>
    response
      .status(405)
      .set('Allow', 'POST')
      .json({
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Method not allowed: this server has no sessions or streams.' },
        id: null,
      });
  app.get('/mcp', notAllowed);
  app.delete('/mcp', notAllowed);
  const listener: HttpServer = await new Promise((resolve, reject) => {
    const server: HttpServer = app.listen(options.port ?? 0, host, (error?: Error) =>
      error ? reject(error) : resolve(server),
    );
  });
  const { port } = listener.address() as AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}/mcp`,
    close: () =>
      new Promise((resolve) => {
        listener.closeAllConnections();
        listener.close(() => resolve());
      }),
  };
}
