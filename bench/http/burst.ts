import { request } from 'node:http';

/** Status code → responses; 0 counts requests that got no response (refused, reset). */
export type StatusCounts = Map<number, number>;

function statusOf(url: string, key: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request(url, { headers: { 'X-API-Key': key }, agent: false }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode ?? 0));
    });
    req.once('error', () => resolve(0));
    req.end();
  });
}

/**
 * `count` GETs of `path` with one key, all sent at once, each on its own connection, spread in turn
 * over `bases` (instances behind no load balancer).
 */
export async function burst(
  bases: readonly string[],
  path: string,
  key: string,
  count: number,
): Promise<StatusCounts> {
  const statuses = await Promise.all(
    Array.from({ length: count }, (_, index) => statusOf(`${bases[index % bases.length]}${path}`, key)),
  );
  const counts: StatusCounts = new Map();
  for (const status of statuses) counts.set(status, (counts.get(status) ?? 0) + 1);
  return counts;
}

export function admitted(counts: StatusCounts): number {
  return counts.get(200) ?? 0;
}

/** `200 × 60, 429 × 240`, by status. */
export function formatCounts(counts: StatusCounts): string {
  return [...counts]
    .sort(([a], [b]) => a - b)
    .map(([status, count]) => `${status === 0 ? 'no response' : status} × ${count}`)
    .join(', ');
}
