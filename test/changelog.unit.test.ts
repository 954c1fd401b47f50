import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../src/project-root.ts';

/**
 * CONTRIBUTING.md's rule for the CHANGELOG: one line per change, not a paragraph; the details are in
 * the commit and, for a measured choice, its decision record. A reader scans the bullets, so each is
 * one line of at most 200 characters.
 */
const maxCharacters = 200;

/** The CHANGELOG's lines after its preamble (from the first release heading), numbered as in the file. */
function entries(): { line: number; text: string }[] {
  const lines = readFileSync(join(projectRoot, 'CHANGELOG.md'), 'utf8').split('\n');
  const first = lines.findIndex((text) => text.startsWith('## '));
  return lines.map((text, index) => ({ line: index + 1, text })).slice(Math.max(first, 0));
}

describe('CHANGELOG.md', () => {
  it('has releases, each change a bullet', () => {
    const all = entries();
    expect(all.some(({ text }) => text === '## Unreleased')).toBe(true);
    expect(all.filter(({ text }) => text.startsWith('- ')).length).toBeGreaterThan(0);
  });

  it('holds every change on one line: no bullet continues onto the next', () => {
    const strays = entries()
      .filter(({ text }) => text.trim() !== '' && !text.startsWith('#') && !text.startsWith('- '))
      .map(({ line, text }) => `${line}: ${text}`);
    expect(strays).toEqual([]);
  });

  it(`keeps every bullet within ${maxCharacters} characters`, () => {
    const long = entries()
      .filter(({ text }) => text.startsWith('- ') && [...text].length > maxCharacters)
      .map(({ line, text }) => `${line}: ${[...text].length} characters: ${text.slice(0, 60)}…`);
    expect(long).toEqual([]);
  });
});
