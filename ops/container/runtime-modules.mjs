// `node ops/container/runtime-modules.mjs PROJECT OUT`: copies from PROJECT/node_modules into
// OUT/node_modules only what the production bundle loads from there at run time, for the image's
// final stage (docs/deployment.md#the-image): the packages `npm run build` keeps out of the bundle
// (its --external flags, read from package.json) with everything they require, and the font file
// the site serves. The rest of the dependencies are inside dist/nerkh.js; npm, tsx and esbuild are
// build tools, so the image carries none of them.
import { cpSync, existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const [project, out] = process.argv.slice(2);
if (project === undefined || out === undefined) {
  process.stderr.write('usage: runtime-modules.mjs PROJECT OUT\n');
  process.exit(2);
}

const manifestOf = (dir) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
const externals = [...manifestOf(project).scripts.build.matchAll(/--external:(\S+)/g)].map(
  (match) => match[1],
);

/**
 * Packages of which only some files run. better-sqlite3: its JavaScript and the addon compiled in
 * the build stage (its C sources and build leftovers are 27 MB); vazirmatn (20 MB of fonts): the
 * one file src/site/font.ts serves, with its licence, and package.json, by which it is found.
 */
const filesOf = {
  'better-sqlite3': ['package.json', 'LICENSE', 'lib', 'build/Release/better_sqlite3.node'],
  vazirmatn: ['package.json', 'OFL.txt', 'misc/Non-Latin/fonts/webfonts/Vazirmatn-NL[wght].woff2'],
};
/** better-sqlite3 runs prebuild-install when it is installed (to fetch a prebuilt addon), never after. */
const installOnly = new Set(['prebuild-install']);

/** Where Node finds package `name` required from `dir`: its own node_modules, then each one above. */
function resolvePackage(name, dir) {
  for (let at = dir; ; at = dirname(at)) {
    const candidate = join(at, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (at === project || dirname(at) === at) return null;
  }
}

const copied = new Set();
/** Copies the package at `dir` (its own files, not its node_modules) and what it requires. */
function copyPackage(dir) {
  if (copied.has(dir)) return;
  copied.add(dir);
  const manifest = manifestOf(dir);
  const target = join(out, relative(project, dir));
  const files = filesOf[manifest.name];
  if (files === undefined) {
    // Its dependencies are copied as they are reached, from wherever npm placed them.
    cpSync(dir, target, {
      recursive: true,
      filter: (path) => relative(dir, path).split('/')[0] !== 'node_modules',
    });
  } else {
    for (const file of files) cpSync(join(dir, file), join(target, file), { recursive: true });
  }
  const required = Object.keys(manifest.dependencies ?? {}).filter((name) => !installOnly.has(name));
  const optional = Object.keys(manifest.optionalDependencies ?? {});
  for (const name of [...required, ...optional]) {
    const found = resolvePackage(name, dir);
    if (found !== null) copyPackage(found);
    else if (!optional.includes(name))
      throw new Error(`${name}, required by ${manifest.name}, is not installed`);
  }
}

for (const name of [...externals, 'vazirmatn']) {
  const found = resolvePackage(name, project);
  if (found === null) throw new Error(`${name} is not installed in ${project}`);
  copyPackage(found);
}
process.stdout.write(
  `runtime modules: ${[...copied].map((dir) => relative(join(project, 'node_modules'), dir)).join(', ')}\n`,
);
