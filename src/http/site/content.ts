import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../project-root.ts';

/**
 * Page sources: Markdown files in `content/`, read once at startup. A source names the dynamic
 * values it shows as `{{name}}`; pages fill them with Markdown fragments built from the latest
 * snapshot, the configuration and the error catalog. Filling is strict: a placeholder without a
 * value is a programming error and throws, so a page can never ship with a literal `{{…}}`.
 */
const contentDir = join(projectRoot, 'content');

export type ContentName =
  | 'index'
  | 'docs'
  | 'errors'
  | 'coins'
  | 'coin'
  | 'coin-not-found'
  | 'contact'
  | 'contact-received'
  | 'status'
  | 'terms'
  | 'clients'
  | 'llms'
  | 'skill';

const fileOf: Record<ContentName, string> = {
  index: 'index.md',
  docs: 'docs.md',
  errors: 'errors.md',
  coins: 'coins.md',
  coin: 'coin.md',
  'coin-not-found': 'coin-not-found.md',
  contact: 'contact.md',
  'contact-received': 'contact-received.md',
  status: 'status.md',
  terms: 'terms.md',
  clients: 'clients.md',
  llms: 'llms.txt',
  skill: 'SKILL.md',
};

export type ContentSources = Readonly<Record<ContentName, string>>;

export function loadContentSources(dir = contentDir): ContentSources {
  const present = new Set(readdirSync(dir));
  const sources = {} as Record<ContentName, string>;
  for (const [name, file] of Object.entries(fileOf) as [ContentName, string][]) {
    if (!present.has(file)) throw new Error(`content file ${file} is missing from ${dir}`);
    sources[name] = readFileSync(`${dir}/${file}`, 'utf8');
  }
  return sources;
}

const placeholder = /\{\{([a-zA-Z][a-zA-Z0-9]*)\}\}/g;

export function fillTemplate(name: string, source: string, values: Readonly<Record<string, string>>): string {
  return source.replace(placeholder, (_match, key: string) => {
    const value = values[key];
    if (value === undefined) throw new Error(`content ${name} uses {{${key}}} but no value was given`);
    return value;
  });
}
