import { spawnSync } from 'node:child_process';

/** Where `command` is on the PATH (the shell's `command -v`), or null when it is not installed. */
export function commandPath(command: string): string | null {
  const found = spawnSync('sh', ['-c', 'command -v "$1"', 'sh', command], { encoding: 'utf8' });
  const path = found.stdout.trim();
  return found.status === 0 && path !== '' ? path : null;
}
