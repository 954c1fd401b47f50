import { createHash } from 'node:crypto';
import { parseYaml } from '@redocly/openapi-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, publicUrl, type TestApp } from '../../support/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await t.app.close();
});

const get = (url: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url, headers });

/** Every absolute URL of this service must answer 200 without a key, in the media type it was announced with. */
async function expectResolves(href: string, type?: string) {
  expect(href.startsWith(`${publicUrl}/`), href).toBe(true);
  const path = href.slice(publicUrl.length);
  if (path === '/v1/rates') return; // needs a key; its 401 is the API's own business
  const response = await get(path, type === undefined ? {} : { accept: type });
  expect(response.statusCode, href).toBe(200);
  if (type !== undefined)
    expect(response.headers['content-type'], href).toMatch(new RegExp(`^${type.replace('+', '\\+')}`));
}

describe('/.well-known/api-catalog (RFC 9727)', () => {
  const mediaType = 'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"';
  const link = `<${publicUrl}/.well-known/api-catalog>; rel="api-catalog"`;

  it('answers GET with the linkset media type and profile, and a Link to itself', async () => {
    const response = await get('/.well-known/api-catalog');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe(mediaType);
    expect(response.headers.link).toBe(link);
  });

  it('answers HEAD with the same headers and no body', async () => {
    const response = await t.app.inject({ method: 'HEAD', url: '/.well-known/api-catalog' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe(mediaType);
    expect(response.headers.link).toBe(link);
    expect(response.body).toBe('');
  });

  it('is an RFC 9264 JSON linkset: link contexts with an anchor and arrays of target objects', async () => {
    const document = (await get('/.well-known/api-catalog')).json();
    expect(Object.keys(document)).toEqual(['linkset']);
    expect(Array.isArray(document.linkset)).toBe(true);
    for (const context of document.linkset as Record<string, unknown>[]) {
      expect(typeof context.anchor).toBe('string');
      for (const [relation, targets] of Object.entries(context)) {
        if (relation === 'anchor') continue;
        expect(relation).toMatch(/^[a-z][a-z0-9.-]*$/);
        expect(Array.isArray(targets), relation).toBe(true);
        for (const target of targets as Record<string, unknown>[]) {
          expect(typeof target.href).toBe('string');
          for (const [attribute, value] of Object.entries(target)) {
            expect(['href', 'type', 'title', 'hreflang'], attribute).toContain(attribute);
            if (attribute === 'hreflang') expect(Array.isArray(value)).toBe(true);
            else expect(typeof value).toBe('string');
          }
        }
      }
    }
  });

  it('describes the v1 API with its OpenAPI, docs, agent guides and health, all reachable in the announced types', async () => {
    const [api] = (await get('/.well-known/api-catalog')).json().linkset;
    expect(api.anchor).toBe(`${publicUrl}/v1`);
    expect(api['service-desc']).toEqual([
      expect.objectContaining({ href: `${publicUrl}/v1/openapi.json`, type: 'application/openapi+json' }),
    ]);
    expect(api['service-doc']).toContainEqual(
      expect.objectContaining({ href: `${publicUrl}/docs`, type: 'text/html' }),
    );
    expect(api.status).toEqual([
      expect.objectContaining({ href: `${publicUrl}/v1/health`, type: 'application/health+json' }),
    ]);
    expect(api['service-meta'].map((target: { href: string }) => target.href)).toEqual(
      expect.arrayContaining([
        `${publicUrl}/llms.txt`,
        `${publicUrl}/SKILL.md`,
        `${publicUrl}/.well-known/agent-skills/index.json`,
      ]),
    );
    for (const [relation, targets] of Object.entries(api)) {
      if (relation === 'anchor') continue;
      for (const target of targets as { href: string; type: string }[])
        await expectResolves(target.href, target.type);
    }
  });

  it('names the MCP endpoint as a link context of its own, documented, and with the service’s health', async () => {
    const contexts = (await get('/.well-known/api-catalog')).json().linkset as Record<string, unknown>[];
    const mcp = contexts.find((context) => context.anchor === `${publicUrl}/mcp`) as
      | Record<string, { href: string; type: string }[]>
      | undefined;
    expect(mcp?.['service-doc']?.[0]?.href).toBe(`${publicUrl}/docs#mcp`);
    expect(mcp?.status?.[0]?.href).toBe(`${publicUrl}/v1/health`);
    for (const targets of Object.values(mcp ?? {})) {
      if (Array.isArray(targets))
        for (const target of targets) await expectResolves(target.href, target.type);
    }
    // llms.txt, the skill and the docs point agents at it too.
    expect((await get('/llms.txt')).body).toContain(`POST ${publicUrl}/mcp`);
    expect((await get('/SKILL.md')).body).toContain(`${publicUrl}/mcp`);
    expect((await get('/docs', { accept: 'text/markdown' })).body).toContain('## MCP');
    expect((await get('/clients', { accept: 'text/markdown' })).body).toContain(`${publicUrl}/mcp`);
  });

  it('is linked from the home page and from the API base URL', async () => {
    // The home page's Link field also carries its language alternates (hreflang).
    expect(String((await get('/')).headers.link).split(', ')).toContain(link);
    const base = await get('/v1');
    expect(base.statusCode).toBe(200);
    expect(base.headers['content-type']).toBe('application/linkset+json');
    expect(base.headers.link).toContain(link);
    expect(base.headers.link).toContain(`<${publicUrl}/v1/openapi.json>; rel="service-desc"`);
    expect((await t.app.inject({ method: 'HEAD', url: '/v1' })).headers.link).toContain(link);
  });
});

/** The llms.txt structure of https://llmstxt.org, checked line by line. */
function parseLlmsTxt(text: string) {
  const lines = text.split('\n');
  const nonEmpty = lines.filter((line) => line.trim() !== '');
  const title = /^# (\S.*)$/.exec(nonEmpty[0] ?? '')?.[1];
  const summary = /^> (\S.*)$/.exec(nonEmpty[1] ?? '')?.[1];
  const sections: { name: string; links: { name: string; url: string; notes?: string }[] }[] = [];
  let preamble = true;
  for (const line of nonEmpty.slice(2)) {
    if (/^# /.test(line)) throw new Error(`second H1: ${line}`);
    const heading = /^## (\S.*)$/.exec(line);
    if (heading?.[1]) {
      preamble = false;
      sections.push({ name: heading[1], links: [] });
      continue;
    }
    if (preamble) continue;
    if (/^#{3,} /.test(line))
      throw new Error(`headings below H2 do not belong in llms.txt sections: ${line}`);
    const item = /^- \[([^\]]+)\]\(([^)\s]+)\)(?:: (.+))?$/.exec(line);
    if (!item?.[1] || !item[2]) throw new Error(`not a "- [name](url): notes" item: ${line}`);
    sections.at(-1)?.links.push({ name: item[1], url: item[2], ...(item[3] ? { notes: item[3] } : {}) });
  }
  return { title, summary, sections };
}

describe('/llms.txt', () => {
  it('follows the llms.txt structure: one H1, a blockquote summary, H2 sections of link lists, Optional last', async () => {
    const response = await get('/llms.txt');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/markdown; charset=utf-8');
    const parsed = parseLlmsTxt(response.body);
    expect(parsed.title).toBe('nerkh');
    expect(parsed.summary).toMatch(/sell rates/);
    expect(parsed.sections.map((section) => section.name)).toEqual(['Docs', 'API', 'Optional']);
    for (const section of parsed.sections) expect(section.links.length).toBeGreaterThan(0);
  });

  it('uses absolute URLs that all resolve, and links the other discovery documents', async () => {
    const { sections } = parseLlmsTxt((await get('/llms.txt')).body);
    const urls = sections.flatMap((section) => section.links.map((link) => link.url));
    for (const url of urls) await expectResolves(url);
    expect(urls).toEqual(
      expect.arrayContaining([
        `${publicUrl}/v1/openapi.json`,
        `${publicUrl}/.well-known/api-catalog`,
        `${publicUrl}/SKILL.md`,
        `${publicUrl}/llms-full.txt`,
        `${publicUrl}/docs`,
      ]),
    );
  });

  it('states the rules an agent must not break', async () => {
    const text = (await get('/llms.txt')).body;
    expect(text).toContain('Never compute or guess a buy rate, a spread or a cost');
    expect(text).toContain('toman, not rial');
    expect(text).toContain('`as_of`');
    expect(text).toContain('`X-API-Key`');
  });
});

describe('/llms-full.txt', () => {
  it('holds the whole documentation in one Markdown file under a single H1', async () => {
    const response = await get('/llms-full.txt');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/markdown; charset=utf-8');
    const text = response.body;
    const outsideCode = text.replace(/```[\s\S]*?```/g, '');
    expect(outsideCode.match(/^# /gm)).toHaveLength(1);
    for (const heading of [
      '## API reference',
      '### GET /v1/rates',
      '## Errors',
      '### `invalid-api-key`',
      '## Terms of use',
      '## Request an API key',
    ]) {
      expect(text).toContain(`\n${heading}\n`);
    }
    expect(text).toContain('Currencies listed: **4**');
    expect(text).toContain(`Source: <${publicUrl}/docs>`);
    expect(text).not.toContain('{{');
  });
});

describe('SKILL.md and the Agent Skills index', () => {
  const skillUrl = `${publicUrl}/.well-known/agent-skills/nerkh-rates/SKILL.md`;

  it('has frontmatter that follows the Agent Skills specification', async () => {
    const response = await get('/.well-known/agent-skills/nerkh-rates/SKILL.md');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/markdown; charset=utf-8');
    const match = /^---\n([\s\S]*?)\n---\n([\s\S]+)$/.exec(response.body);
    expect(match).not.toBeNull();
    const frontmatter = parseYaml(match?.[1] ?? '') as Record<string, unknown>;
    expect(
      Object.keys(frontmatter).every((key) =>
        ['name', 'description', 'license', 'compatibility', 'metadata', 'allowed-tools'].includes(key),
      ),
    ).toBe(true);
    const name = frontmatter.name as string;
    expect(name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    expect(name.length).toBeLessThanOrEqual(64);
    expect(name).toBe('nerkh-rates');
    const description = frontmatter.description as string;
    expect(description.length).toBeGreaterThan(0);
    expect(description.length).toBeLessThanOrEqual(1024);
    expect(description).toMatch(/Use when/);
    expect((frontmatter.compatibility as string).length).toBeLessThanOrEqual(500);
    expect(match?.[2]).toMatch(/^\n# /);
  });

  it('is the same bytes at /SKILL.md and under /.well-known/agent-skills/', async () => {
    expect((await get('/SKILL.md')).rawPayload).toEqual(
      (await get('/.well-known/agent-skills/nerkh-rates/SKILL.md')).rawPayload,
    );
  });

  it('is listed in the discovery index with the sha256 digest of the exact bytes served', async () => {
    const response = await get('/.well-known/agent-skills/index.json');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/json');
    const index = response.json();
    expect(index.$schema).toBe('https://schemas.agentskills.io/discovery/0.2.0/schema.json');
    expect(index.skills).toHaveLength(1);
    const [entry] = index.skills;
    expect(Object.keys(entry).sort()).toEqual(['description', 'digest', 'name', 'type', 'url']);
    expect(entry).toMatchObject({ name: 'nerkh-rates', type: 'skill-md', url: skillUrl });
    const served = (await get(entry.url.slice(publicUrl.length))).rawPayload;
    expect(entry.digest).toBe(`sha256:${createHash('sha256').update(served).digest('hex')}`);
    const frontmatter = parseYaml(/^---\n([\s\S]*?)\n---\n/.exec(served.toString('utf8'))?.[1] ?? '') as {
      description: string;
    };
    expect(entry.description).toBe(frontmatter.description);
  });

  it('teaches the key, the header, freshness, the sell-side-only rule, toman, and every error an agent meets', async () => {
    const text = (await get('/SKILL.md')).body;
    for (const needed of [
      `${publicUrl}/contact`,
      'X-API-Key',
      'Never put it in a URL',
      `${publicUrl}/v1/rates?symbol=BTC`,
      '`as_of`',
      '/v1/health',
      'Never compute, estimate or present a buy rate, a spread',
      '**toman**, not rial',
      '`Retry-After`',
      '| 400 | `invalid-symbol`',
      '| 401 | `missing-api-key`',
      '| 403 | `invalid-api-key`',
      '| 404 | `unknown-symbol`',
      '| 429 | `rate-limited`',
    ]) {
      expect(text).toContain(needed);
    }
    for (const linked of ['/docs', '/v1/openapi.json', '/.well-known/api-catalog', '/llms.txt']) {
      expect(text).toContain(`${publicUrl}${linked}`);
    }
  });
});
