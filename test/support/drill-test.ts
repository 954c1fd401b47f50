import { onTestFinished } from 'vitest';
import type { Say, Teardown } from '../../drills/support/rig.ts';

/** Progress of a drill run as a test: its lines on stdout, as the script prints them. */
export function sayAs(name: string): Say {
  return (line) => process.stdout.write(`${name}: ${line}\n`);
}

/** A drill's clean-up steps, run when the test finishes (registered before it asserts). */
export const testTeardown: Teardown = (step) =>
  onTestFinished(async () => {
    await step();
  });
