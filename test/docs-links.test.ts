import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import MarkdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../src/project-root.ts';

/**
 * The repository's own documents point only at what exists: every relative link (and its anchor,
 * when it names a Markdown file's heading), every repository path written in code, and the
 * README's folder map, which names every top-level and `src/` folder and nothing else.
 */

/** Documents a reader follows; history (the CHANGELOG) keeps old paths. */
function documents(): string[] {
  const docs = readdirSync(join(projectRoot, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.md'))
    .map((file) => join('docs', file));
  return ['README.md', 'CONTRIBUTING.md', 'CHANGELOG.md', ...docs].sort();
}
const history = new Set(['CHANGELOG.md']);

const markdown = new MarkdownIt({ html: false });

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .trim()
    .replace(/\s/g, '-');
}

interface Parsed {
  links: string[];
  codeSpans: string[];
  anchors: Set<string>;
}

const parsedFiles = new Map<string, Parsed>();
function parse(file: string): Parsed {
  const known = parsedFiles.get(file);
  if (known) return known;
  const source = readFileSync(join(projectRoot, file), 'utf8');
  const tokens = markdown.parse(source, {});
  const links: string[] = [];
  const codeSpans: string[] = [];
  const anchors = new Set([...source.matchAll(/<a id="([^"]+)">/g)].map((match) => match[1] as string));
  const seen = new Map<string, number>();
  tokens.forEach((token, index) => {
    if (token.type === 'heading_open') {
      const text = (tokens[index + 1]?.children ?? []).map((child) => child.content).join('');
      const base = slug(text);
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      anchors.add(count === 0 ? base : `${base}-${count}`);
    }
    for (const child of token.children ?? []) {
      if (child.type === 'link_open') links.push(String(child.attrGet('href') ?? ''));
      if (child.type === 'code_inline') codeSpans.push(child.content);
    }
  });
  const parsed = { links, codeSpans, anchors };
  parsedFiles.set(file, parsed);
  return parsed;
}

describe('documents point at what exists', () => {
  it.each(documents())('%s: every relative link resolves, anchors included', (file) => {
    const broken: string[] = [];
    for (const href of parse(file).links) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(href)) continue; // https:, mailto:
      const [path = '', anchor] = href.split('#');
      const target = path === '' ? join(projectRoot, file) : resolve(projectRoot, dirname(file), path);
      if (!existsSync(target)) {
        broken.push(`${href}: no such file`);
        continue;
      }
      if (anchor !== undefined && target.endsWith('.md') && statSync(target).isFile()) {
        const targetFile = relative(projectRoot, target);
        if (!parse(targetFile).anchors.has(anchor)) broken.push(`${href}: no heading #${anchor}`);
      }
    }
    expect(broken).toEqual([]);
  });

  const repositoryPath =
    /^(?:\.ci|bench|bin|catalog|content|docs|drills|packages|scripts|sources|src|test)\/[\w./-]*$/;
  it.each(documents().filter((file) => !history.has(file)))(
    '%s: every repository path in code exists',
    (file) => {
      const missing = parse(file)
        .codeSpans.filter((span) => repositoryPath.test(span))
        .filter((span) => !existsSync(join(projectRoot, span)));
      expect(missing).toEqual([]);
    },
  );
});

/** Source files whose comments may cite the docs. */
function sourceFiles(): string[] {
  return ['src', 'bench', 'drills', 'scripts', 'bin', 'test']
    .flatMap((dir) =>
      readdirSync(join(projectRoot, dir), { recursive: true, encoding: 'utf8' }).map((file) =>
        join(dir, file),
      ),
    )
    .filter((file) => /\.(ts|js|cjs)$/.test(file))
    .concat(['compose.yaml'])
    .sort();
}

describe('code cites documents that exist', () => {
  it('every docs/….md a source file names exists, with the section it names', () => {
    const broken: string[] = [];
    for (const file of sourceFiles()) {
      const text = readFileSync(join(projectRoot, file), 'utf8');
      for (const [cited, path, anchor] of text.matchAll(/\b(docs\/[\w./-]+\.md)(?:#([\w-]+))?/g)) {
        if (!existsSync(join(projectRoot, path as string))) broken.push(`${file}: ${cited}: no such file`);
        else if (anchor !== undefined && !parse(path as string).anchors.has(anchor))
          broken.push(`${file}: ${cited}: no heading #${anchor}`);
      }
    }
    expect(broken).toEqual([]);
  });
});

/** Folders the repository holds: from git when it is there, else from the disk minus what git ignores. */
function trackedFolders(under: string): string[] {
  try {
    const files = execFileSync('git', ['ls-files', '-z', '--', under], { cwd: projectRoot, encoding: 'utf8' })
      .split('\0')
      .filter((file) => file !== '');
    if (files.length > 0) {
      const prefix = under === '.' ? '' : `${under}/`;
      return [
        ...new Set(
          files
            .map((file) => file.slice(prefix.length).split('/'))
            .filter((parts) => parts.length > 1)
            .map((parts) => parts[0] as string),
        ),
      ].sort();
    }
  } catch {
    // Not a git checkout: read the disk.
  }
  const ignored = new Set(['.git', 'node_modules', 'dist', 'coverage', 'data', 'test-artifacts']);
  return readdirSync(join(projectRoot, under), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !ignored.has(entry.name))
    .map((entry) => entry.name)
    .sort();
}

describe("the README's folder map", () => {
  const readme = readFileSync(join(projectRoot, 'README.md'), 'utf8');
  const section = /\n## Folder map\n([\s\S]*?)(?:\n## |$)/.exec(readme)?.[1] ?? '';
  const blocks = [...section.matchAll(/```text\n([\s\S]*?)```/g)].map((match) => match[1] as string);
  /** `name/` at the start of a line indented by `indent` spaces. */
  const named = (block: string, indent: number) =>
    [...block.matchAll(new RegExp(`^ {${indent}}([\\w.-]+)/(?=\\s)`, 'gm'))]
      .map((match) => match[1] as string)
      .sort();

  it('names every top-level folder, and none that does not exist', () => {
    expect(named(blocks[0] ?? '', 0)).toEqual(trackedFolders('.'));
  });

  it('names every src/ folder, and none that does not exist', () => {
    const srcBlock = blocks.find((block) => block.startsWith('src/\n')) ?? '';
    expect(named(srcBlock, 2)).toEqual(trackedFolders('src'));
  });
});

describe('the docs indexes', () => {
  const linksOf = (file: string) =>
    new Set(parse(file).links.map((href) => resolve(projectRoot, dirname(file), href.split('#')[0] ?? '')));

  it('docs/README.md links every page in docs/ and the decision records', () => {
    const pages = readdirSync(join(projectRoot, 'docs'))
      .filter((file) => file.endsWith('.md') && file !== 'README.md')
      .map((file) => join('docs', file))
      .filter((file) => !history.has(file))
      .concat([join('docs', 'decisions', 'README.md')]);
    const linked = linksOf(join('docs', 'README.md'));
    expect(pages.filter((page) => !linked.has(join(projectRoot, page)))).toEqual([]);
  });

  it('docs/decisions/README.md links every record and the template', () => {
    const records = readdirSync(join(projectRoot, 'docs', 'decisions'))
      .filter((file) => file.endsWith('.md') && file !== 'README.md')
      .map((file) => join('docs', 'decisions', file));
    const linked = linksOf(join('docs', 'decisions', 'README.md'));
    expect(records.filter((record) => !linked.has(join(projectRoot, record)))).toEqual([]);
  });
});
