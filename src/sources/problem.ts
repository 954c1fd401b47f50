/**
 * A mistake in a sources file, found where the file says it: a JSON pointer (RFC 6901) into the
 * parsed document, turned into a line and column when the error is reported.
 */
export interface Problem {
  /** RFC 6901 pointer to the value at fault, e.g. `/sources/1/poll_seconds`; '' = the document. */
  pointer: string;
  message: string;
  /** The key itself is at fault (an unknown field, a badly spelt symbol), not its value. */
  atKey?: boolean;
}

/** A pointer from its segments, each escaped as RFC 6901 §3 requires. */
export function pointerTo(...segments: ReadonlyArray<string | number>): string {
  return segments
    .map((segment) => `/${String(segment).replaceAll('~', '~0').replaceAll('/', '~1')}`)
    .join('');
}

/** The segments of a pointer, unescaped (RFC 6901 §4). */
export function segmentsOf(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** The sources file cannot be used: each line of `problems` is `FILE:LINE:COL: /pointer: message`. */
export class SourcesFileError extends Error {
  override name = 'SourcesFileError';

  constructor(
    readonly file: string,
    readonly problems: readonly string[],
  ) {
    const count = problems.length === 1 ? 'a mistake' : `${problems.length} mistakes`;
    super(`sources file ${file} has ${count}:\n${problems.join('\n')}`);
  }
}
