/**
 * The two parts of a request target in origin form, `path[?query]` (RFC 9112 §3.2.1), as
 * `request.url` holds it. Each finds the `?` itself, so a caller that needs one part builds no other.
 */

/** The path, without the query. */
export function pathOf(target: string): string {
  const query = target.indexOf('?');
  return query === -1 ? target : target.slice(0, query);
}

/** The raw query after the `?`, or undefined when there is none. */
export function queryOf(target: string): string | undefined {
  const query = target.indexOf('?');
  return query === -1 ? undefined : target.slice(query + 1);
}
