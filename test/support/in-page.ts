/**
 * Scripts that run inside the page (Playwright `page.evaluate`). They are plain JavaScript in
 * strings because the project type-checks against Node's globals only, without the DOM library.
 */

/** Text nodes with Persian letters that are not inside an element marked lang="fa" dir="rtl". */
export const unmarkedPersianText = `(() => {
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const found = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent || '';
    if (/[\\u0600-\\u06FF]/.test(text) && !node.parentElement.closest('[lang="fa"][dir="rtl"], pre, code')) {
      found.push(text);
    }
  }
  return found;
})()`;

/** Headings ("h2 Text") and link targets inside <main>, in document order. */
export const mainOutline = `(() => {
  const main = document.querySelector('main');
  return {
    headings: [...main.querySelectorAll('h1,h2,h3,h4,h5,h6')].map(
      (h) => h.tagName.toLowerCase() + ' ' + (h.textContent || '').replace(/\\s+/g, ' ').trim(),
    ),
    links: [...main.querySelectorAll('a[href]')].map((a) => a.getAttribute('href') || ''),
  };
})()`;

/** How far the page is wider than the viewport (positive: it scrolls sideways). */
export const horizontalOverflow = `document.documentElement.scrollWidth - document.documentElement.clientWidth`;

/** Where the coins list's price cells and their text lie, against the viewport's width. */
export interface PricePlacement {
  viewport: number;
  pageOverflow: number;
  /** How far the list's region is wider than what it shows (positive: it scrolls sideways). */
  listOverflow: number;
  rows: { id: string; boxes: Record<string, { left: number; right: number; width: number }> }[];
}

/**
 * Each row's toman and tether price, the cell and the text within it, as the page lays them out.
 * Columns are found by their heading's sort link (`sort=toman`, `sort=usdt`), in either language.
 */
export const pricePlacement = `(() => {
  const table = document.querySelector('table.coin-table');
  const headings = [...table.tHead.rows[0].cells];
  const column = (key) => headings.findIndex((th) => new URLSearchParams(th.querySelector('a')?.search).get('sort') === key);
  const columns = { toman: column('toman'), usdt: column('usdt') };
  const box = (rect) => ({ left: Math.round(rect.left), right: Math.round(rect.right), width: Math.round(rect.width) });
  const region = table.closest('.table-scroll');
  return {
    viewport: document.documentElement.clientWidth,
    pageOverflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
    listOverflow: region.scrollWidth - region.clientWidth,
    rows: [...table.tBodies[0].rows].map((row) => {
      const boxes = {};
      for (const [key, index] of Object.entries(columns)) {
        const cell = row.cells[index];
        const text = document.createRange();
        text.selectNodeContents(cell);
        boxes[key + ' cell'] = box(cell.getBoundingClientRect());
        boxes[key + ' text'] = box(text.getBoundingClientRect());
      }
      return { id: row.id, boxes };
    }),
  };
})()`;

/** The focused element's text, outline and position. */
export const focusedElement = `(() => {
  const element = document.activeElement;
  const style = getComputedStyle(element);
  return {
    id: element.id,
    text: element.textContent,
    outline: style.outlineStyle,
    width: style.outlineWidth,
    top: element.getBoundingClientRect().top,
  };
})()`;

/** Visible text elements whose colour contrast against their background is below 4.5:1 (WCAG 1.4.3). */
export const lowContrastText = `(() => {
  const parse = (color) => (color.match(/[\\d.]+/g) || []).map(Number);
  const channel = (value) => {
    const c = value / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const luminance = ([r = 0, g = 0, b = 0]) => 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
  const background = (element) => {
    for (let current = element; current; current = current.parentElement) {
      const color = parse(getComputedStyle(current).backgroundColor);
      if (color.length === 3 || (color[3] || 0) > 0) return color.slice(0, 3);
    }
    return [255, 255, 255];
  };
  const found = [];
  for (const element of document.querySelectorAll('h1, h2, p, li, a, label, .hint, th, td, code, button, legend')) {
    if (!element.offsetParent) continue;
    const fg = luminance(parse(getComputedStyle(element).color));
    const bg = luminance(background(element));
    const ratio = (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
    if (ratio < 4.5) found.push(element.tagName + '.' + element.className + ': ' + ratio.toFixed(2));
  }
  return found;
})()`;

/** What the test reports of an axe-core violation: the rule, its impact and the elements. */
export interface AxeViolation {
  id: string;
  impact: string;
  help: string;
  targets: string[];
}

/** Runs axe-core (evaluated into the page first) with its default rules: WCAG 2.x A and AA and best practices. */
export const axeRun = `axe.run(document, { resultTypes: ['violations'] }).then((result) =>
  result.violations.map((violation) => ({
    id: violation.id,
    impact: violation.impact,
    help: violation.help,
    targets: violation.nodes.map((node) => node.target.join(' ')),
  })),
)`;

/** Bytes the page and its resources took on this (first, uncached) visit, as sent (compressed), by URL. */
export const firstVisitBytes = `(() => {
  const entries = [performance.getEntriesByType('navigation')[0], ...performance.getEntriesByType('resource')];
  return {
    total: entries.reduce((sum, entry) => sum + entry.encodedBodySize, 0),
    entries: entries.map((entry) => entry.name + ' ' + entry.encodedBodySize + ' (' + entry.decodedBodySize + ' decoded)'),
  };
})()`;

/**
 * SVG texts with Persian letters whose first character is not drawn to the right of their last
 * one: read right to left, they would come out backwards (`۵ خرداد` as `خرداد ۵`). Bidi control
 * characters are skipped.
 */
export const backwardsPersianSvgText = `(() => {
  const found = [];
  for (const text of document.querySelectorAll('svg text')) {
    const chars = [...(text.textContent || '')];
    if (!chars.some((char) => /[\\u0621-\\u064A\\u067E-\\u06CC]/.test(char))) continue;
    const visible = chars.map((char, index) => [char, index]).filter(([char]) => !/[\\u2066-\\u2069\\u200E\\u200F\\s]/.test(char));
    const first = text.getExtentOfChar(visible[0][1]);
    const last = text.getExtentOfChar(visible[visible.length - 1][1]);
    if (first.x <= last.x) found.push(text.textContent);
  }
  return found;
})()`;
