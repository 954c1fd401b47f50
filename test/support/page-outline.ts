import MarkdownIt from 'markdown-it';

/** The headings and links of a document: what must agree between a page's Markdown and HTML forms. */
export interface Outline {
  headings: string[];
  links: string[];
}

const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" };

function decode(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39);/g, (_all, name: string) => entities[name] as string);
}

const squash = (text: string) => text.replace(/\s+/g, ' ').trim();

export function markdownOutline(markdown: string): Outline {
  const tokens = new MarkdownIt({ html: false }).parse(markdown, {});
  const headings: string[] = [];
  const links: string[] = [];
  tokens.forEach((token, index) => {
    if (token.type === 'heading_open') {
      const inline = tokens[index + 1];
      // A trailing `{#id}` names the heading's anchor; it is not part of the heading's text.
      const text = inline?.children?.map((child) => child.content).join('') ?? '';
      headings.push(`${token.tag} ${squash(text.replace(/\s*\{#[A-Za-z][\w-]*\}\s*$/, ''))}`);
    }
    for (const child of token.children ?? []) {
      if (child.type === 'link_open') links.push(String(child.attrGet('href') ?? ''));
    }
  });
  return { headings, links };
}

/** Headings and links inside `<main>` of a page; the site's HTML is generated, so a tag scanner suffices. */
export function htmlOutline(html: string): Outline {
  const main = /<main\b[^>]*>([\s\S]*)<\/main>/.exec(html)?.[1];
  if (main === undefined) throw new Error('page has no <main>');
  const headings: string[] = [];
  const links: string[] = [];
  let heading: { tag: string; text: string } | null = null;
  for (const match of main.matchAll(/<(\/?)([a-zA-Z][a-zA-Z0-9]*)([^>]*)>|([^<]+)/g)) {
    const [, closing, tag, attributes, text] = match;
    if (text !== undefined) {
      if (heading) heading.text += decode(text);
      continue;
    }
    const name = tag?.toLowerCase() ?? '';
    if (/^h[1-6]$/.test(name)) {
      if (closing) {
        if (heading) headings.push(`${heading.tag} ${squash(heading.text)}`);
        heading = null;
      } else {
        heading = { tag: name, text: '' };
      }
    } else if (name === 'a' && !closing) {
      const href = /\bhref="([^"]*)"/.exec(attributes ?? '')?.[1];
      if (href !== undefined) links.push(decode(href));
    }
  }
  return { headings, links };
}
