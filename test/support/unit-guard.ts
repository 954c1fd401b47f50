import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';

/**
 * The unit loop's promise (vitest.unit.config.ts): no test in it starts a process. Every way
 * node:child_process has to start one throws instead, naming the rule, so a unit test that starts
 * nerkh, a database or a tool fails at once rather than slowing the loop. Such a test is named
 * `*.test.ts`, and runs in `npm test` only.
 */
const starters = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const;
for (const name of starters) {
  Object.defineProperty(childProcess, name, {
    configurable: true,
    writable: true,
    value: () => {
      throw new Error(
        `child_process.${name}: a *.unit.test.ts starts no process; name the file *.test.ts (CONTRIBUTING.md, "Tests")`,
      );
    },
  });
}
// ES modules that imported a name from node:child_process see the replacement too.
syncBuiltinESMExports();
