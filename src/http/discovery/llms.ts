import type { Page, SitePages } from '../../site/pages/site-pages.ts';

/**
 * `/llms.txt` (https://llmstxt.org): one H1, a blockquote summary, short rules, then H2 sections
 * of `- [name](url): note` links, ending with `## Optional`. Its source is `content/llms.txt`.
 *
 * `/llms-full.txt`: the documentation pages in one Markdown file, built from the same sources as
 * the pages, so it can never disagree with them. Each page's headings move one level down under
 * the file's single H1.
 */

export function buildLlmsTxt(pages: SitePages): string {
  return pages.fill('llms');
}

export function buildLlmsFullTxt(pages: SitePages, publicUrl: string): string {
  const sections: [string, Page][] = [
    ['/', pages.overview()],
    ['/docs', pages.docs()],
    ['/docs/errors', pages.errors()],
    ['/clients', pages.clients()],
    ['/terms', pages.terms()],
    ['/contact', pages.contact()],
  ];
  const parts = [
    '# nerkh: full documentation',
    '',
    `> Everything a program or an AI agent needs to use the nerkh rates API (${publicUrl}/v1), in one file. Each section below is also a page of ${publicUrl}, available as HTML or, with \`Accept: text/markdown\`, as Markdown.`,
  ];
  for (const [path, page] of sections) {
    const [heading = '', ...body] = demoteHeadings(page.markdown).trim().split('\n');
    parts.push('', heading, '', `Source: <${publicUrl}${path}>`, ...body);
  }
  return `${parts.join('\n')}\n`;
}

/** Adds one `#` to every ATX heading outside fenced code blocks (CommonMark §4.2, §4.5). */
function demoteHeadings(markdown: string): string {
  let fence: string | null = null;
  return markdown
    .split('\n')
    .map((line) => {
      const fenceMatch = /^ {0,3}(`{3,}|~{3,})/.exec(line);
      if (fenceMatch?.[1]) {
        const marker = fenceMatch[1];
        if (fence === null) fence = marker;
        else if (marker[0] === fence[0] && marker.length >= fence.length) fence = null;
        return line;
      }
      if (fence === null && /^ {0,3}#{1,5} /.test(line)) return line.replace(/^( {0,3})#/, '$1##');
      return line;
    })
    .join('\n');
}
