import type { Say } from '../../drills/support/rig.ts';

/** Progress of a drill run as a test: its lines on stdout, as the script prints them. */
export function sayAs(name: string): Say {
  return (line) => process.stdout.write(`${name}: ${line}\n`);
}
