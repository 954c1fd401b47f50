/** The value of one series (name and labels as printed) in a scrape, or undefined when it has no such series. */
export function seriesValue(scrape: string, series: string): number | undefined {
  const line = scrape.split('\n').find((text) => text.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}
