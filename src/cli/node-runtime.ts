/**
 * Why nerkh refuses to run on the Node.js at `version` (`process.versions.node`), or undefined
 * when it runs there. Node 24.19.0 made `node::ObjectWrap`, the C++ base of better-sqlite3's
 * Database, Statement and iterator objects, register a clean-up hook per object and remove it
 * when the object is destroyed; until 24.22.0 removing it aborts the process
 * (`Assertion failed: (env) != nullptr` in `node::RemoveEnvironmentCleanupHook`) whenever V8
 * collects such an object: the statements of the start-up pragmas, a chart's iterators. Refused
 * at start with this reason instead of an abort with no word of nerkh's
 * (docs/decisions/0038-node-24-from-24-22.md).
 */
export function unsupportedNodeReason(version: string): string | undefined {
  const [major, minor] = version.split('.').map(Number);
  if (major === 24 && minor !== undefined && minor >= 19 && minor < 22) {
    return (
      `Node.js ${version} aborts when a better-sqlite3 object is garbage-collected ` +
      '(fixed in 24.22.0); run nerkh on Node.js 24.22 or later, 22.12 or later, or 20.19 or later'
    );
  }
  return undefined;
}
