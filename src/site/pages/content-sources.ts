import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../project-root.ts';
import type { Language } from '../language.ts';

/**
 * Page sources: Markdown files in `content/` (English) and `content/fa/` (Persian, the same file
 * names), read once at startup. llms.txt and SKILL.md are documents for programs and exist in
 * English only. A source names the dynamic
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

/** Sources that are written once, in English, whatever the page language. */
const englishOnly: ReadonlySet<ContentName> = new Set(['llms', 'skill']);

/** The folder of a language's page sources under the content root. */
export function languageDir(language: Language, root = contentDir): string {
  return language === 'en' ? root : join(root, language);
}

export function loadContentSources(language: Language = 'en', root = contentDir): ContentSources {
  const sources = {} as Record<ContentName, string>;
  const listings = new Map<string, Set<string>>();
  for (const [name, file] of Object.entries(fileOf) as [ContentName, string][]) {
    const dir = englishOnly.has(name) ? root : languageDir(language, root);
    let present = listings.get(dir);
    if (present === undefined) {
      present = new Set(readdirSync(dir));
      listings.set(dir, present);
    }
    if (!present.has(file)) throw new Error(`content file ${file} is missing from ${dir}`);
    sources[name] = readFileSync(join(dir, file), 'utf8');
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
