/**
 * Text the CLI prints for operators. Organisation names and key requests can hold text typed by
 * strangers (the contact page), so everything printed is made inert first: control characters
 * (terminal escape sequences) and bidirectional overrides are shown as escapes instead of being
 * sent to the terminal, in tables and in `--json` output alike.
 */

/** C0 and C1 controls, DEL, line and paragraph separators, bidi embeddings, overrides and isolates. */
const unsafeForTerminal = /[\p{Cc}\u2028\u2029\u202A-\u202E\u2066-\u2069]/gu;

export function terminalSafe(text: string): string {
  return text.replace(unsafeForTerminal, (char) => `\\u{${(char.codePointAt(0) ?? 0).toString(16)}}`);
}

/** JSON.stringify escapes C0 controls but leaves C1, separators and bidi controls raw; this escapes those too. */
export function terminalSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(
    unsafeForTerminal,
    (char) => `\\u${(char.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`,
  );
}

/** Left-aligned columns separated by two spaces; cells are made terminal-safe. */
export function table(rows: string[][]): string {
  const safeRows = rows.map((row) => row.map(terminalSafe));
  const widths =
    safeRows[0]?.map((_, column) => Math.max(...safeRows.map((row) => (row[column] ?? '').length))) ?? [];
  return safeRows
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
