import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { problem } from '../../web/error-catalog.ts';
import { callTool, type Inject } from './tool-calls.ts';
import { mcpTools } from './tools.ts';

interface McpRouteOptions {
  /** The service's public address: `/mcp` accepts browser requests from its origin only. */
  publicUrl: string;
  /** The app's own `inject`, through which the tools ask the real routes. */
  inject: Inject;
  /** `releaseId` of the health report: the MCP server's version. */
  version: string;
  clock: () => number;
}

/**
 * The largest JSON-RPC message `/mcp` reads: a `tools/call` naming 20 symbols is well under 1 KiB,
 * an `initialize` with a client's capabilities a few; anything larger is refused (413) before the
 * MCP server sees it.
 */
export const mcpBodyLimit = 16 * 1024;

const instructions =
  'nerkh publishes sell rates only, in tether and toman (not rial). Judge each rate by its as_of. Call get_service_health before relying on rates. get_sell_rates needs the API key in the X-API-Key header of the HTTP requests; each call of it counts as one request against the key’s limit.';

/** The request's header fields as the Fetch API's Headers, less those that framed the body Node already read. */
function fetchHeaders(request: FastifyRequest): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || name === 'content-length' || name === 'transfer-encoding') continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  return headers;
}

/**
 * `POST /mcp` (content/docs.md "MCP"): the MCP Streamable HTTP transport, stateless. Every request
 * gets a fresh MCP server and transport (the SDK's pattern for servers without sessions), so any
 * instance answers any request and nothing is kept between them; answers are JSON, never an SSE
 * stream. GET and DELETE, which open a stream or end a session, answer 405 with `Allow: POST`
 * from the one not-found handler, as the transport lets a server without them do.
 *
 * The route only frames the protocol: the tools ask `/v1/rates` and `/v1/health` in-process
 * (./tool-calls.ts), so the key, the limit and the body are exactly those routes'. The body is
 * read as text and parsed by the SDK, so malformed JSON gets its JSON-RPC parse error.
 */
export const mcpRoutes: FastifyPluginAsync<McpRouteOptions> = async (app, options) => {
  const { publicUrl, inject, clock } = options;
  const ownOrigin = new URL(publicUrl).origin;
  // In this plugin's scope only: the body stays text for the SDK, and other media types are 415.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) =>
    done(null, body),
  );
  app.post('/mcp', { bodyLimit: mcpBodyLimit }, async (request, reply) => {
    // The transport's DNS-rebinding rule (MCP 2025-11-25, basic/transports, "Security Warning"):
    // a browser's request from another origin is refused; programs send no Origin.
    const origin = request.headers.origin;
    if (origin !== undefined && origin !== ownOrigin) {
      throw problem(
        'origin-not-allowed',
        'A page of another site may not call /mcp; programs and MCP hosts send no Origin header.',
      );
    }
    const caller = {
      apiKey: typeof request.headers['x-api-key'] === 'string' ? request.headers['x-api-key'] : undefined,
      ip: request.ip,
      requestId: request.id,
    };
    const server = new Server(
      { name: 'nerkh', title: 'nerkh rates', version: options.version },
      { capabilities: { tools: {} }, instructions },
    );
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: mcpTools }));
    server.setRequestHandler(CallToolRequestSchema, async (call) => {
      const args = (call.params.arguments ?? {}) as Record<string, unknown>;
      const result = await callTool(call.params.name, args, inject, { ...caller, nowMs: clock() });
      if (result === null) {
        throw new McpError(
          ErrorCode.InvalidParams,
          'Unknown tool; the tools are get_sell_rates and get_service_health.',
        );
      }
      return result;
    });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    try {
      await server.connect(transport);
      const answer = await transport.handleRequest(
        new Request(`${publicUrl}/mcp`, {
          method: 'POST',
          headers: fetchHeaders(request),
          ...(typeof request.body === 'string' ? { body: request.body } : {}),
        }),
      );
      reply.code(answer.status);
      answer.headers.forEach((value, name) => {
        reply.header(name, value);
      });
      const body = await answer.text();
      return reply.send(body === '' ? undefined : body);
    } finally {
      await transport.close();
      await server.close();
    }
  });
};
