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
  /** After this long, the stop that follows the drain gives up waiting and exits 1 (default 15 s). */
  timeoutMs?: number;
  /**
   * Runs before `stop`: the drain (service.ts), during which the process is not ready and still
   * serves. It resolves early when `cut` aborts (a second signal).
   */
  drain?: (cut: AbortSignal) => Promise<void>;
  exit?: (code: number) => void;
}

/**
 * Stops cleanly on SIGTERM or SIGINT: `drain` first (when given), then `stop`, which closes the
 * listener so no new connection is accepted, lets in-flight requests finish (Fastify's close closes
 * idle keep-alive connections only), then stops the collector and closes the stores; the process
 * exits 0. A second signal during the drain ends the drain at once and the stop goes on as usual;
 * a signal after that, or a stop that hangs past `timeoutMs`, exits 1 at once. So the process
 * exits within the drain and `timeoutMs`.
 * Returns a function that removes the handlers.
 */
export function exitOnSignals(stop: () => Promise<void>, options: ShutdownOptions): () => void {
  const {
    logger,
    signals = ['SIGTERM', 'SIGINT'],
    timeoutMs = 15_000,
    drain,
    exit = (code) => process.exit(code),
  } = options;
  let stopping = false;
  /** Set while the drain runs; aborted by a second signal. */
  let drainCut: AbortController | null = null;
  const stopNow = (signal: NodeJS.Signals) => {
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
  const onSignal = (signal: NodeJS.Signals) => {
    if (drainCut !== null) {
      logger.warn({ signal }, 'second signal: ending the drain now');
      drainCut.abort();
      drainCut = null;
      return;
    }
    if (stopping) {
      logger.warn({ signal }, 'another signal: exiting without waiting');
      exit(1);
      return;
    }
    stopping = true;
    if (drain === undefined) {
      stopNow(signal);
      return;
    }
    const cut = new AbortController();
    drainCut = cut;
    logger.info({ signal }, 'draining: not ready, still serving');
    drain(cut.signal).then(
      () => {
        drainCut = null;
        stopNow(signal);
      },
      (error: unknown) => {
        drainCut = null;
        logger.error({ err: error }, 'draining failed; stopping now');
        stopNow(signal);
      },
    );
  };
  for (const signal of signals) process.on(signal, onSignal);
  return () => {
    for (const signal of signals) process.off(signal, onSignal);
  };
}
