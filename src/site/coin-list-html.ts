import {
  type CoinListQuery,
  type CoinSortKey,
  coinListSearch,
  maxFilterLength,
  sortedBy,
} from './coin-list-query.ts';
import { escapeHtml, escapeHtmlWithLanguages } from './markdown.ts';

/**
 * The coins list as HTML: a GET filter form and a table whose column headings are sort links and
 * whose rows have the symbol as their id (`/coins#BTC`). Nothing here needs script. Every word
 * comes from the page, in its language (Persian runs inside other text are marked as the Markdown
 * renderer marks them); cells arrive as escaped HTML.
 */

/**
 * Part of the page's one stylesheet: the filter in a row, the row an anchor points at highlighted.
 * On a phone, cells do not wrap but for the long time at the end: with the whole catalog, rows a
 * line or two high keep the list's layout small, and the table scrolls sideways in its region. On
 * a wide screen the list takes more of it, so its seven columns fit.
 */
export const coinListStylesheet = `
.visually-hidden{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);white-space:nowrap;border:0}
.coin-filter{gap:.5rem}
.coin-filter-actions{margin:0;display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center}
.coin-table th{position:relative}
.coin-table th a{white-space:nowrap}
.coin-table td,.coin-table th{vertical-align:middle}
@media (max-width:40rem){.coin-table td{white-space:nowrap}.coin-table td:last-child{white-space:normal}}
.coin-table td:last-child{overflow-wrap:normal}
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
