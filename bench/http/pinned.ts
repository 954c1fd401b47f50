/**
 * `command args…` as spawn takes it, run on CPU `cpu` through taskset when one is given, so the
 * servers and the load generator never compete for a core (util-linux taskset(1)).
 */
export function pinned(
  cpu: number | undefined,
  command: string,
  args: readonly string[],
): [string, string[]] {
  return cpu === undefined ? [command, [...args]] : ['taskset', ['-c', String(cpu), command, ...args]];
}
