/** How the bench states its figures: medians, whole numbers with separators, a target's verdict. */

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

export const verdict = (pass: boolean) => (pass ? 'PASS' : 'MISS');

export const integer = (value: number) => Math.round(value).toLocaleString('en-US');

/** One line of a table: the first cell left-aligned, the others right-aligned, to the widths. */
export function row(cells: string[], widths: number[]): string {
  return cells
    .map((cell, index) =>
      index === 0 ? cell.padEnd(widths[0] as number) : cell.padStart(widths[index] as number),
    )
    .join('  ');
}
