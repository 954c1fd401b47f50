import type { AddressInfo } from 'node:net';
import type { Logger } from '../logger.ts';
import { urlHost } from '../net/url-host.ts';
import type { NerkhApp } from './types.ts';

class ListenError extends Error {
  override name = 'ListenError';
}

/**
 * Binds the app to host:port and returns its base URL. A taken port is reported in one line an
 * operator can act on, instead of Node's EADDRINUSE stack.
 */
export async function listen(app: NerkhApp, host: string, port: number): Promise<string> {
  try {
    await app.listen({ host, port });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') {
      throw new ListenError(
        `port ${port} on ${host} is already in use; stop what holds it or set PORT to a free port`,
      );
    }
    if (code === 'EACCES')
      throw new ListenError(`not allowed to listen on ${host}:${port}; choose a port above 1023`);
    if (code === 'EADDRNOTAVAIL')
      throw new ListenError(`cannot listen on ${host}: no such local address (HOST)`);
    throw error;
  }
  const address = app.server.address() as AddressInfo;
  return `http://${urlHost(address.address)}:${address.port}`;
}

interface ShutdownOptions {
  logger: Logger;
  /** Default SIGTERM and SIGINT. */
  signals?: readonly NodeJS.Signals[];
  /** After this long, shutdown gives up waiting and exits 1 (default 15 s). */
  timeoutMs?: number;
  exit?: (code: number) => void;
}

/**
 * Stops cleanly on SIGTERM or SIGINT: `stop` closes the listener so no new connection is
 * accepted, lets in-flight requests finish (Fastify's close closes idle keep-alive connections
 * only), then stops the collector and closes the stores; the process exits 0. A second signal,
 * or a stop that hangs past `timeoutMs`, exits 1 at once.
 * Returns a function that removes the handlers.
 */
export function exitOnSignals(stop: () => Promise<void>, options: ShutdownOptions): () => void {
  const {
    logger,
    signals = ['SIGTERM', 'SIGINT'],
    timeoutMs = 15_000,
    exit = (code) => process.exit(code),
  } = options;
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting without waiting');
      exit(1);
      return;
    }
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    const timer = setTimeout(() => {
      logger.error({ timeout_ms: timeoutMs }, 'shutdown did not finish in time; exiting');
      exit(1);
    }, timeoutMs);
    timer.unref();
    stop().then(
      () => {
        clearTimeout(timer);
        logger.info('stopped');
        exit(0);
      },
      (error: unknown) => {
        clearTimeout(timer);
        logger.error({ err: error }, 'shutdown failed');
        exit(1);
      },
    );
  };
  for (const signal of signals) process.on(signal, onSignal);
  return () => {
    for (const signal of signals) process.off(signal, onSignal);
  };
}
