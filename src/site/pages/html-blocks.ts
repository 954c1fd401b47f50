/**
 * HTML a page adds to its Markdown: charts, and tables whose rows carry anchors and sparklines,
 * which Markdown cannot express (and which the renderer, escaping all raw HTML, would not let
 * through). A value given as a block fills its placeholder with Markdown in the Markdown form and
 * with a slot in the HTML form's source; after rendering, each slot's paragraph is replaced by the
 * block's HTML, which the page built from escaped values.
 */

/** A placeholder's value that differs between the page's two forms. */
export interface HtmlBlock {
  /** What the Markdown form says there ('' for nothing). */
  markdown: string;
  /** Trusted HTML for the HTML form. */
  html: string;
}

/** The HTML form's source: Markdown with slots, and the blocks that fill them. */
export interface SlottedMarkdown {
  markdown: string;
  blocks: readonly string[];
}

/** Private-use characters: no page text contains them, and Markdown leaves them alone. */
const slotOf = (index: number) => `\u{E000}${index}\u{E000}`;
const renderedSlot = /<p>\u{E000}(\d+)\u{E000}<\/p>\n?/gu;

/** The values for each form: the Markdown form's, and the HTML form's with a slot per block. */
export function splitBlocks(values: Readonly<Record<string, string | HtmlBlock>>): {
  markdownValues: Record<string, string>;
  htmlValues: Record<string, string>;
  blocks: string[];
} {
  const markdownValues: Record<string, string> = {};
  const htmlValues: Record<string, string> = {};
  const blocks: string[] = [];
  for (const [key, value] of Object.entries(values)) {
    if (typeof value === 'string') {
      markdownValues[key] = value;
      htmlValues[key] = value;
    } else {
      markdownValues[key] = value.markdown;
      htmlValues[key] = `\n\n${slotOf(blocks.length)}\n\n`;
      blocks.push(value.html);
    }
  }
  return { markdownValues, htmlValues, blocks };
}

/** Renders the HTML form's source and puts each block in its slot. */
export function renderSlotted(render: (markdown: string) => string, source: SlottedMarkdown): string {
  return render(source.markdown).replace(
    renderedSlot,
    (_match, index: string) => source.blocks[Number(index)] ?? '',
  );
}
