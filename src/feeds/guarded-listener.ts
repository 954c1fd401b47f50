import type { Logger } from '../logger.ts';
import type { FeedListener, SourceName } from './types.ts';

/**
 * The listener as a feed calls it: a listener that throws (the collector failing) is logged and
 * goes no further, so its failure cannot unwind into the socket or timer that delivered the data.
 */
export function guardedListener(listener: FeedListener, logger: Logger, source: SourceName): FeedListener {
  const guard =
    <A extends unknown[]>(method: (...args: A) => void) =>
    (...args: A): void => {
      try {
        method.apply(listener, args);
      } catch (error) {
        logger.error({ err: error, source }, `${source}: feed listener threw`);
      }
    };
  return {
    quote: guard(listener.quote),
    rejected: guard(listener.rejected),
    connectionState: guard(listener.connectionState),
  };
}
