import { escapeHtml, escapeHtmlWithLanguages } from '../pages/markdown.ts';
import {
  type CoinListQuery,
  type CoinSortKey,
  coinListSearch,
  maxFilterLength,
  sortedBy,
} from './coin-list-query.ts';

/**
 * The coins list as HTML: a GET filter form and a table whose column headings are sort links and
 * whose rows have the symbol as their id (`/coins#BTC`). Nothing here needs script. Every word
 * comes from the page, in its language (Persian runs inside other text are marked as the Markdown
 * renderer marks them); cells arrive as escaped HTML.
 */

/**
 * The list's columns, in the order the table has them. The phone layout below places cells by
 * their position, so `renderCoinTable` takes its columns in exactly this order.
 */
export const coinColumnKeys = ['symbol', 'name', 'usdt', 'toman', 'change', 'trend', 'asOf'] as const;
export type CoinColumnKey = (typeof coinColumnKeys)[number];

/** A row's cell of one column, as a selector. */
const cellOf = (key: CoinColumnKey) => `.coin-table tbody tr>:nth-child(${coinColumnKeys.indexOf(key) + 1})`;

/** Where each column's cell goes in a row on a phone (see `coinListStylesheet`). */
const phoneCells = coinColumnKeys.map((key) => `${cellOf(key)}{grid-area:${key}}`).join('');

/**
 * Part of the page's one stylesheet: the filter in a row, the row an anchor points at highlighted.
 *
 * On a phone (below 40rem) seven columns cannot fit, and the table used to scroll sideways in its
 * region with both prices out of sight (docs/architecture.md#the-website). There each row is laid out as a small grid
 * instead, prices at its end: the symbol and the toman price; the name and the tether price; the
 * 24 h change and the sparkline; the time, smaller, across the row. The prices take at most 60% of
 * the row, so that a long name beside a long price still wraps between words, and a price wider
 * than that wraps before its unit, never within its number. The heading row becomes a wrapping line of its sort links (the
 * sparkline's heading, which has none, stays for screen readers only). The elements stay a table, with its headers, in
 * the accessibility tree (test/browser/site.test.ts reads Chromium's), and the DOM order, which a
 * screen reader follows, is unchanged. Rows out of sight are not laid out until they scroll near
 * (`content-visibility: auto`, each row taken as about 7rem high until it has been): with the whole
 * catalog a phone lays out a screenful, not 156 grids, while the page loads. From 40rem the table
 * is laid out as a table; on a wide screen the list takes more of it, so its seven columns fit.
 */
export const coinListStylesheet = `
.visually-hidden{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);white-space:nowrap;border:0}
.coin-filter{gap:.5rem}
.coin-filter-actions{margin:0;display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center}
.coin-table th{position:relative}
.coin-table th a{white-space:nowrap}
.coin-table td,.coin-table th{vertical-align:middle}
.coin-table td:last-child{overflow-wrap:normal}
@media (width<40rem){
.coin-table,.coin-table thead,.coin-table tbody{display:block}
.coin-table thead tr{display:flex;flex-wrap:wrap;column-gap:1rem;padding:0 .6rem;background:var(--soft);border-bottom:1px solid var(--line)}
.coin-table thead th{display:block;padding:0;border:0}
.coin-table thead th a{display:inline-block;min-height:44px;line-height:44px}
.coin-table thead th:not(:has(a)){position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
.coin-table tbody tr{display:grid;grid-template-columns:minmax(0,1fr) fit-content(60%);grid-template-areas:"symbol toman" "name usdt" "change trend" "asOf asOf";gap:0 .75rem;align-items:start;padding:.5rem .6rem;border-bottom:1px solid var(--line);content-visibility:auto;contain-intrinsic-size:auto 7rem}
.coin-table tbody tr:last-child{border-bottom:0}
.coin-table tbody tr>*{display:block;padding:0;border:0}
${cellOf('usdt')},${cellOf('toman')},${cellOf('trend')}{justify-self:end;text-align:end}
${cellOf('change')},${cellOf('trend')}{align-self:center}
${cellOf('asOf')}{color:var(--muted);font-size:.8125rem}
${phoneCells}
}
@media (min-width:60rem){main:has(.coin-table){max-width:64rem}}
.coin-table tbody th{background:none}
.coin-table tr:target{background:var(--soft);outline:2px solid var(--focus);outline-offset:-2px}
.coin-table tr{scroll-margin-top:1rem}
`.trim();

export interface CoinListLabels {
  /** Accessible name of the table's scroll region. */
  table: string;
  /** The filter's label and hint. */
  filter: string;
  filterHint: string;
  /** The filter's button. */
  apply: string;
  /** Read after a sortable heading's name by screen readers: what following its link does. */
  sortAction(order: 'asc' | 'desc'): string;
}

export interface CoinColumn {
  key: CoinColumnKey;
  label: string;
  /** Absent: the column cannot be sorted by. */
  sort?: CoinSortKey;
}

export interface CoinListRow {
  /** The symbol: the row's anchor. */
  id: string;
  /** One escaped HTML fragment per column. */
  cells: string[];
}

export interface CoinListInput {
  /** The list's address, without a query. */
  action: string;
  query: CoinListQuery;
  columns: readonly CoinColumn[];
  rows: readonly CoinListRow[];
  labels: CoinListLabels;
}

export function renderCoinFilter(input: Pick<CoinListInput, 'action' | 'query' | 'labels'>): string {
  const { action, query, labels } = input;
  const keepSort =
    query.sort === 'symbol' && query.order === 'asc'
      ? ''
      : `<input type="hidden" name="sort" value="${escapeHtml(query.sort)}"><input type="hidden" name="order" value="${escapeHtml(query.order)}">`;
  return `<form class="coin-filter" method="get" action="${escapeHtml(action)}" role="search">
<label for="coin-filter">${escapeHtmlWithLanguages(labels.filter)}<span class="hint" id="coin-filter-hint">${escapeHtmlWithLanguages(labels.filterHint)}</span></label>
<input id="coin-filter" name="q" type="search" maxlength="${maxFilterLength}" value="${escapeHtml(query.q)}" aria-describedby="coin-filter-hint" autocomplete="off" spellcheck="false">${keepSort}
<p class="coin-filter-actions"><button type="submit">${escapeHtml(labels.apply)}</button></p>
</form>\n`;
}

export function renderCoinTable(input: CoinListInput): string {
  const { action, query, columns, rows, labels } = input;
  if (columns.map((column) => column.key).join() !== coinColumnKeys.join()) {
    throw new Error(
      `the coins list's columns must be ${coinColumnKeys.join(', ')}: its phone layout places cells by position`,
    );
  }
  const headings = columns
    .map((column) => {
      if (column.sort === undefined) return `<th scope="col">${escapeHtml(column.label)}</th>`;
      const active = column.sort === query.sort;
      const target = sortedBy(query, column.sort);
      const href = action + coinListSearch(target);
      const ariaSort = active ? ` aria-sort="${query.order === 'asc' ? 'ascending' : 'descending'}"` : '';
      const arrow = active ? `<span aria-hidden="true">${query.order === 'asc' ? ' ▲' : ' ▼'}</span>` : '';
      return `<th scope="col"${ariaSort}><a href="${escapeHtml(href)}">${escapeHtml(column.label)}${arrow}<span class="visually-hidden">, ${escapeHtml(labels.sortAction(target.order))}</span></a></th>`;
    })
    .join('');
  const body = rows
    .map(
      (row) =>
        `<tr id="${escapeHtml(row.id)}">${row.cells.map((cell, index) => (index === 0 ? `<th scope="row">${cell}</th>` : `<td>${cell}</td>`)).join('')}</tr>`,
    )
    .join('\n');
  return `<div class="table-scroll" role="region" tabindex="0" aria-label="${escapeHtml(labels.table)}">
<table class="coin-table">
<thead><tr>${headings}</tr></thead>
<tbody>
${body}
</tbody>
</table>
</div>\n`;
}
