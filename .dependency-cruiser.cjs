/**
 * The import rules of src/, checked by `npm run lint` (dependency-cruiser). Data flows one way,
 * sources → collector → store → HTTP, and the imports follow it: each layer below imports only
 * from the layers beneath it, never from one above, and no module imports itself back through
 * others (type-only imports included).
 */

/** From the ground up; a module may import from its own layer's folders and from those beneath. */
const layers = [
  ['domain', '^src/(domain|net)/|^src/(flat-string|project-root)\\.ts$'],
  ['configuration and logs', '^src/(config|logger)\\.ts$'],
  ['feeds, simulator, limiter', '^src/(feeds|simulator|limiter)/'],
  ['sources and catalog files', '^src/(sources|catalog)/'],
  ['store', '^src/store/'],
  ['collector, keys, key requests', '^src/(collector|keys|key-requests)/'],
  ['leadership and metrics', '^src/(leadership|metrics)/'],
  ['web core', '^src/web/'],
  ['site', '^src/site/'],
  ['http edge', '^src/http/edge/|^src/http/types\\.ts$'],
  ['http health, snapshot, auth', '^src/http/(health|snapshot|auth)/'],
  ['http rates', '^src/http/rates/'],
  ['http discovery', '^src/http/discovery/'],
  ['http app and server', '^src/http/(app|server)\\.ts$'],
  ['composition root', '^src/(service|api-wiring)\\.ts$'],
  ['command line', '^src/cli/'],
];

const upward = layers.slice(0, -1).map(([name, path], index) => ({
  name: `no-import-above-${name.replaceAll(/[^a-z]+/g, '-')}`,
  comment: `${name} imports nothing from a layer above it`,
  severity: 'error',
  from: { path },
  to: { path: layers.slice(index + 1).map(([, above]) => `(${above})`) },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'no module imports itself back through others, type-only imports included',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'domain-is-pure',
      comment: 'domain/ is pure: it imports only domain/ and TypeBox, nothing with I/O',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { pathNot: ['^src/domain/', '^(node_modules/)?typebox(/|$)'] },
    },
    {
      name: 'src-imports-no-tests',
      comment: 'the service never imports its tests, benches or drills',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|bench|drills|scripts)/' },
    },
    {
      name: 'site-imports-no-http',
      comment:
        'the website imports nothing from the API: what both need is in web/ (the API registers the site, not the reverse)',
      severity: 'error',
      from: { path: '^src/site/' },
      to: { path: '^src/http/' },
    },
    {
      name: 'web-imports-neither-http-nor-site',
      comment: 'web/ is the core below the API and the website: it imports from neither',
      severity: 'error',
      from: { path: '^src/web/' },
      to: { path: '^src/(http|site)/' },
    },
    ...upward,
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^packages/[^/]+/src/generated/' },
  },
};
