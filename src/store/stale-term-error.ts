/**
 * A collector's write refused because another instance took the collector lease since: the writer
 * was deposed (its lease ran out while it was paused or cut off) and must stop committing.
 */
export class StaleTermError extends Error {
  override name = 'StaleTermError';

  constructor(readonly term: number) {
    super(`the collector lease has moved on from term ${term}: this instance no longer leads`);
  }
}
