import { stopScript } from '../../scripts/command-line.ts';
import { commandPath } from './command-path.ts';
import { nginxBinary } from './nginx.ts';
import type { BenchPart } from './parts.ts';

/** Stops the bench, saying what to install, when a tool the selected parts run is missing. */
export function requireTools(parts: ReadonlySet<BenchPart>): void {
  for (const tool of ['wrk', 'taskset']) {
    if (commandPath(tool) === null) {
      stopScript(
        'bench',
        `${tool} is not installed: apt-get install -y ${tool === 'wrk' ? 'wrk' : 'util-linux'}`,
      );
    }
  }
  if (parts.has('base') && nginxBinary() === null)
    stopScript('bench', 'nginx is not installed: apt-get install -y nginx');
}
