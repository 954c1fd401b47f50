import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ErrorObject } from 'ajv';
import ajvFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/project-root.ts';

/**
 * `packages/mcp/server.json`, the MCP Registry entry for `@nerkh/mcp` and the service's `/mcp`,
 * checked against the registry's schema as vendored in `packages/mcp/registry/` (no network), and
 * against the package it names: what `mcp-publisher publish` and the registry would refuse, caught
 * before anyone runs them.
 */
const mcpDir = join(projectRoot, 'packages', 'mcp');
const schemaText = readFileSync(join(mcpDir, 'registry', 'server.schema.json'), 'utf8');
const schema = JSON.parse(schemaText) as { $id: string; $schema: string };
const serverJson = JSON.parse(readFileSync(join(mcpDir, 'server.json'), 'utf8')) as ServerJson;
const packageJson = JSON.parse(readFileSync(join(mcpDir, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  mcpName?: string;
};

/** packages/mcp/registry/README.md: static.modelcontextprotocol.io's file at modelcontextprotocol/static a9ba437d. */
const vendoredSha256 = '3fba09590c99f61735d234822279f4223fab9e300c0a81e81c91ab62a4114de0';

interface Input {
  name?: string;
  isRequired?: boolean;
  isSecret?: boolean;
}
interface ServerJson {
  $schema: string;
  name: string;
  version: string;
  description: string;
  packages: {
    registryType: string;
    identifier: string;
    version: string;
    transport: { type: string };
    environmentVariables: (Input & { name: string })[];
  }[];
  remotes: {
    type: string;
    url: string;
    variables?: Record<string, Input>;
    headers?: (Input & { name: string })[];
  }[];
}

// The schema is draft-07 (its `$schema`), Ajv's default draft. It also carries OpenAPI's `example`
// annotation, which strict mode would refuse as an unknown keyword; declared, it is ignored.
const ajv = new Ajv({ allErrors: true });
ajvFormats.default(ajv);
ajv.addKeyword('example');
const validate = ajv.compile(schema);

function schemaErrors(document: unknown): string[] {
  if (validate(document)) return [];
  return (validate.errors ?? []).map((error: ErrorObject) => `${error.instancePath} ${error.message}`);
}

/** The registry's own rules that the schema cannot state, and this repository's. */
function registryMismatches(server: ServerJson, pkg: typeof packageJson): string[] {
  const problems: string[] = [];
  // The registry verifies an npm package by its `mcpName` (modelcontextprotocol/registry, "Quickstart:
  // Publish an MCP Server to the MCP Registry", step 4: "The `name` property in `server.json` **must**
  // match the `mcpName` property in `package.json`").
  if (server.name !== pkg.mcpName) problems.push(`name ${server.name} is not mcpName ${pkg.mcpName}`);
  if (server.version !== pkg.version) problems.push(`version ${server.version} is not ${pkg.version}`);
  const npm = server.packages.find((entry) => entry.registryType === 'npm' && entry.identifier === pkg.name);
  if (!npm) problems.push(`no npm package ${pkg.name}`);
  else if (npm.version !== pkg.version)
    problems.push(`packages[npm].version ${npm.version} is not ${pkg.version}`);
  for (const [index, remote] of server.remotes.entries()) {
    // internal/validators/utils.go (IsValidTemplatedURL, IsValidRemoteURL): every `{variable}` of a
    // remote's URL is one of its `variables`, and the URL is https.
    const used = [...remote.url.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] ?? '');
    const undeclared = used.filter((name) => !remote.variables?.[name]);
    if (undeclared.length > 0)
      problems.push(`remotes[${index}].url uses undeclared ${undeclared.join(', ')}`);
    const resolved = new URL(remote.url.replace(/\{[^}]+\}/g, 'rates.example'));
    if (resolved.protocol !== 'https:') problems.push(`remotes[${index}].url is not https`);
    // src/http/mcp/route.ts: the service answers MCP at its public URL's /mcp.
    if (resolved.pathname !== '/mcp')
      problems.push(`remotes[${index}].url path ${resolved.pathname} is not /mcp`);
  }
  return problems;
}

const copy = (): ServerJson => structuredClone(serverJson);

describe('packages/mcp/server.json', () => {
  it('uses the vendored schema, unchanged, the one its $schema names', () => {
    expect(createHash('sha256').update(schemaText).digest('hex')).toBe(vendoredSha256);
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(serverJson.$schema).toBe(schema.$id);
    expect(schema.$id).toBe('https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json');
  });

  it('is valid against the registry schema', () => {
    expect(schemaErrors(serverJson)).toEqual([]);
  });

  it('names the npm package by its mcpName and version, and the remote at /mcp', () => {
    expect(packageJson.mcpName).toBe('io.github.nerkh/nerkh');
    expect(registryMismatches(serverJson, packageJson)).toEqual([]);
  });

  it('declares the environment the packaged server reads, the key a secret', () => {
    const main = readFileSync(join(mcpDir, 'src', 'main.ts'), 'utf8');
    const read = new Set([...main.matchAll(/process\.env\.(NERKH_\w+)/g)].map((match) => match[1]));
    const npm = serverJson.packages[0];
    expect(new Set(npm?.environmentVariables.map((variable) => variable.name))).toEqual(read);
    const byName = new Map(npm?.environmentVariables.map((variable) => [variable.name, variable]));
    expect(byName.get('NERKH_BASE_URL')).toMatchObject({ isRequired: true });
    expect(byName.get('NERKH_API_KEY')).toMatchObject({ isRequired: true, isSecret: true });
  });

  it('asks for the key in X-API-Key on the remote, required and secret', () => {
    const [remote] = serverJson.remotes;
    expect(remote?.type).toBe('streamable-http');
    expect(remote?.headers).toEqual([
      expect.objectContaining({ name: 'X-API-Key', isRequired: true, isSecret: true }),
    ]);
  });

  it('refuses broken copies, naming the field', () => {
    const long = copy();
    long.description = 'x'.repeat(101);
    expect(schemaErrors(long)).toContain('/description must NOT have more than 100 characters');

    const latest = copy();
    if (latest.packages[0]) latest.packages[0].version = 'latest';
    expect(schemaErrors(latest)).toContain('/packages/0/version must NOT be valid');

    // A remote URL must start with a scheme, so the template cannot be the whole base URL.
    const template = copy();
    if (template.remotes[0]) template.remotes[0].url = '{nerkh_base_url}/mcp';
    expect(schemaErrors(template)).toContain('/remotes/0/url must match pattern "^https?://[^\\s]+$"');

    const unnamed = copy() as Partial<ServerJson>;
    delete unnamed.name;
    expect(schemaErrors(unnamed)).toContain(" must have required property 'name'");

    const renamed = copy();
    renamed.name = 'io.github.someone/nerkh';
    expect(registryMismatches(renamed, packageJson)).toEqual([
      'name io.github.someone/nerkh is not mcpName io.github.nerkh/nerkh',
    ]);

    const moved = copy();
    if (moved.remotes[0]) moved.remotes[0].url = 'https://{nerkh_host}/v1/mcp';
    expect(registryMismatches(moved, packageJson)).toEqual(['remotes[0].url path /v1/mcp is not /mcp']);

    const undeclared = copy();
    if (undeclared.remotes[0]) undeclared.remotes[0].url = 'https://{host}/mcp';
    expect(registryMismatches(undeclared, packageJson)).toEqual(['remotes[0].url uses undeclared host']);

    const behind = copy();
    if (behind.packages[0]) behind.packages[0].version = '0.0.9';
    expect(registryMismatches(behind, packageJson)).toEqual([
      `packages[npm].version 0.0.9 is not ${packageJson.version}`,
    ]);
  });
});
