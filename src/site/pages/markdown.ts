import MarkdownIt from 'markdown-it';
import type { Language } from '../language.ts';

/**
 * Markdown → HTML for the website. Every page is authored once, in Markdown, and this renderer
 * turns it into the HTML form, so the two forms of a page always say the same thing (docs/architecture.md#the-website).
 *
 * - `html: false`: raw HTML in a source (or in a value filled into it) is shown as text, never
 *   interpreted, so nothing in Markdown can inject markup.
 * - Headings get `id`s (GitHub-style slugs), so sections have stable anchors: `/docs/errors#<code>`
 *   is the `type` URL of every problem document. A heading may name its anchor itself with a
 *   trailing `{#id}` (the Pandoc and kramdown attribute syntax): Persian headings keep the English
 *   anchors that links in both languages point to.
 * - On English pages, runs of Persian text are wrapped in `<span lang="fa" dir="rtl">` so screen
 *   readers switch language and the bidirectional algorithm lays them out right to left (WCAG
 *   3.1.2). Persian pages are `lang="fa" dir="rtl"` as a whole and get no such spans: each span is
 *   a bidi isolate, and isolating the digit groups of `۰۱:۵۹:۲۹` would reorder them.
 * - Tables sit in a focusable, labelled scroll region, and code blocks are focusable, so on a phone
 *   they scroll instead of widening the page, and keyboard users can scroll them (WCAG 1.4.10, 2.1.1).
 */

/** Arabic-script letters (Persian included), Arabic-Indic digits, and ZWNJ between them. */
const persianRun =
  /[\u0600-\u06FF\uFB50-\uFDFF\uFE70-\uFEFF](?:[\u0600-\u06FF\uFB50-\uFDFF\uFE70-\uFEFF\u200C ]*[\u0600-\u06FF\uFB50-\uFDFF\uFE70-\uFEFF])?/g;

const htmlEscapes: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => htmlEscapes[char] as string);
}

/** Escapes text for HTML and marks Persian runs with their language and direction. */
export function escapeHtmlWithLanguages(text: string): string {
  let html = '';
  let last = 0;
  for (const match of text.matchAll(persianRun)) {
    html += escapeHtml(text.slice(last, match.index));
    html += `<span lang="fa" dir="rtl">${escapeHtml(match[0])}</span>`;
    last = match.index + match[0].length;
  }
  return html + escapeHtml(text.slice(last));
}

/**
 * Escapes a value for use as literal text inside Markdown (CommonMark §2.4: any ASCII punctuation
 * may be backslash-escaped). Inline markup characters are always escaped; block markers only at
 * the start, where they could open a heading or list. Line breaks become spaces so a value can
 * never start a block of its own.
 */
export function escapeMarkdown(text: string): string {
  return text
    .replace(/[\r\n]+/g, ' ')
    .replace(/[\\`*_[\]<>|~&!]/g, '\\$&')
    .replace(/^(\s*)([#+\-=])/, '$1\\$2')
    .replace(/^(\s*\d+)([.)])/, '$1\\$2');
}

/** GitHub-style heading slug: lower case, punctuation dropped, spaces to hyphens. */
function slugify(text: string): string {
  return text
    .toLowerCase()
    .trim()
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .replace(/\s+/g, '-');
}

/** Rough token count of a text for `x-markdown-tokens` (about four characters a token). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

const explicitAnchor = /\s*\{#([A-Za-z][\w-]*)\}\s*$/;

/** Removes a trailing `{#id}` from a heading's last text token and returns the id. */
function takeExplicitAnchor(token: { type: string; content: string } | undefined): string | undefined {
  if (token?.type !== 'text') return undefined;
  const match = explicitAnchor.exec(token.content);
  if (!match) return undefined;
  token.content = token.content.slice(0, match.index);
  return match[1];
}

type MarkdownRenderer = (markdown: string) => string;

export function createMarkdownRenderer(language: Language = 'en'): MarkdownRenderer {
  const md = new MarkdownIt({ html: false, linkify: false, typographer: false });

  md.core.ruler.push('heading_ids', (state) => {
    const used = new Map<string, number>();
    let lastHeading = 'Table';
    for (let index = 0; index < state.tokens.length; index++) {
      const token = state.tokens[index];
      if (token?.type === 'heading_open') {
        const children = state.tokens[index + 1]?.children ?? [];
        const explicit = takeExplicitAnchor(children.at(-1));
        const text = children.map((child) => child.content).join('');
        const base = explicit ?? (slugify(text) || 'section');
        const seen = used.get(base) ?? 0;
        used.set(base, seen + 1);
        token.attrSet('id', seen === 0 ? base : `${base}-${seen}`);
        lastHeading = text;
      } else if (token?.type === 'table_open') {
        token.meta = { label: lastHeading };
      }
    }
  });

  const escapeText = language === 'en' ? escapeHtmlWithLanguages : escapeHtml;
  md.renderer.rules.text = (tokens, index) => escapeText(tokens[index]?.content ?? '');
  md.renderer.rules.table_open = (tokens, index) => {
    const label = (tokens[index]?.meta as { label?: string } | undefined)?.label ?? 'Table';
    return `<div class="table-scroll" role="region" tabindex="0" aria-label="${escapeHtml(label)}">\n<table>\n`;
  };
  md.renderer.rules.table_close = () => '</table>\n</div>\n';
  // Code blocks scroll sideways on narrow screens; focusable so the keyboard can scroll them too.
  const renderFence = md.renderer.rules.fence;
  md.renderer.rules.fence = (tokens, index, options, env, self) =>
    (renderFence?.(tokens, index, options, env, self) ?? '').replace(/^<pre>/, '<pre tabindex="0">');

  return (markdown) => md.render(markdown);
}
