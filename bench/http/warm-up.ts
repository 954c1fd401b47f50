import type { BenchRun } from './bench-run.ts';
import { type Etags, measureLoad } from './measure-load.ts';
import { fullList } from './scenarios.ts';
import { isNerkh, type ServerName } from './server-names.ts';

/**
 * Load on every server before the rounds, not measured (JIT, connection setup): each nerkh for
 * --warm-up seconds, past the one-time events of its process's first minute; nginx 1 s, the others 2 s.
 */
export async function warmUp(run: BenchRun, servers: readonly ServerName[], etags: Etags): Promise<void> {
  for (const server of servers) {
    await measureLoad(
      run,
      server,
      fullList,
      etags,
      isNerkh(server) ? run.options.warmUpSeconds : server === 'nginx' ? 1 : 2,
    );
  }
}
