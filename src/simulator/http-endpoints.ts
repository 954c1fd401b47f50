/**
 * What every simulated HTTP endpoint has in common: JSON answers, `GET` only, and the connection
 * faults (`drop` resets the connection, `stall` holds the request until the fault changes,
 * `http-429`, `http-5xx` and `geo-block` (451) answer with the exchange's own error body). An
 * exchange's file describes its endpoint as an `HttpEndpoint`; price faults are its own to apply.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Exchange, Faults, SimulatorFault } from './faults.ts';

export interface UpstreamAnswer {
  status: number;
  body: string;
  headers?: Record<string, string>;
  /** Sent this long after the request, as a slow upstream does. */
  delayMs?: number;
}

export interface HttpEndpoint {
  /** The exchange whose fault applies. */
  readonly exchange: Exchange;
  /** The path it answers, e.g. `/api/v3/ticker/24hr`. */
  readonly path: string;
  /** True: it answers every path under `path` (one document per market, e.g. `…/orderbook/BTC_IRT/`). */
  readonly pathPrefix?: boolean;
  /** The answer under any fault but the connection faults above; `pathname` is the request's. */
  answer(params: URLSearchParams, fault: SimulatorFault, pathname?: string): UpstreamAnswer;
  /** The exchange's reply when it rate-limits; `headers` carry `retry-after`. */
  rateLimited(headers: Record<string, string>): UpstreamAnswer;
  /** The exchange's reply when it is down. */
  unavailable(): UpstreamAnswer;
  /** The exchange's reply to a client in a location it refuses: HTTP 451. */
  geoBlocked(): UpstreamAnswer;
}

interface HeldRequest {
  exchange: Exchange;
  res: ServerResponse;
  answer: () => UpstreamAnswer;
}

export function json(status: number, body: unknown, headers?: Record<string, string>): UpstreamAnswer {
  return { status, body: JSON.stringify(body), ...(headers ? { headers } : {}) };
}

export function sendJson(res: ServerResponse, answer: UpstreamAnswer): void {
  res.writeHead(answer.status, {
    'content-type': 'application/json;charset=UTF-8',
    'content-length': Buffer.byteLength(answer.body),
    ...answer.headers,
  });
  res.end(answer.body);
}

export class HttpEndpoints {
  private readonly held = new Set<HeldRequest>();

  constructor(
    private readonly faults: Faults,
    /** Seconds sent in `Retry-After` under the `http-429` fault. */
    private readonly retryAfterSeconds: number,
  ) {
    faults.onChange(() => this.releaseHeld());
  }

  serve(
    endpoint: HttpEndpoint,
    req: IncomingMessage,
    res: ServerResponse,
    params: URLSearchParams,
    pathname?: string,
  ): void {
    if (req.method !== 'GET') {
      sendJson(res, json(405, { error: 'method not allowed' }, { allow: 'GET' }));
      return;
    }
    const { exchange } = endpoint;
    const answer = () => endpoint.answer(params, this.faults.of(exchange), pathname);
    switch (this.faults.of(exchange)) {
      case 'drop':
        req.socket.destroy();
        return;
      case 'stall':
        this.held.add({ exchange, res, answer });
        return;
      case 'http-429':
        sendJson(res, endpoint.rateLimited({ 'retry-after': String(this.retryAfterSeconds) }));
        return;
      case 'http-5xx':
        sendJson(res, endpoint.unavailable());
        return;
      case 'geo-block':
        sendJson(res, endpoint.geoBlocked());
        return;
      default: {
        const now = answer();
        if (now.delayMs === undefined) {
          sendJson(res, now);
          return;
        }
        const timer = setTimeout(() => {
          if (!res.destroyed) sendJson(res, now);
        }, now.delayMs);
        res.once('close', () => clearTimeout(timer));
      }
    }
  }

  /** Drops held requests without an answer. */
  stop(): void {
    for (const request of this.held) request.res.destroy();
    this.held.clear();
  }

  /** When a stall ends, the requests it held get their answer, with the price fault now set if any. */
  private releaseHeld(): void {
    for (const request of this.held) {
      if (this.faults.of(request.exchange) !== 'stall') {
        this.held.delete(request);
        if (!request.res.destroyed) sendJson(request.res, request.answer());
      }
    }
  }
}
