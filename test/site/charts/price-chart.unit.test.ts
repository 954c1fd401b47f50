import { describe, expect, it } from 'vitest';
import type { ChartText } from '../../../src/site/charts/chart-text.ts';
import { renderPriceChart } from '../../../src/site/charts/price-chart.ts';
import type { ChartPoint } from '../../../src/site/charts/series-summary.ts';
import { renderSparkline } from '../../../src/site/charts/sparkline.ts';

const from = '2026-03-01T00:00:00.000Z';
const to = '2026-03-02T00:00:00.000Z';
const hourly = (values: number[]): ChartPoint[] =>
  values.map((value, hour) => ({ at: new Date(Date.parse(from) + hour * 3_600_000).toISOString(), value }));

/** Words and formats in another language and script: the renderer must add no text of its own. */
const persian: ChartText = {
  labels: {
    title: 'نمودار',
    valueAxis: 'قیمت',
    timeAxis: 'زمان',
    low: 'کمینه',
    high: 'بیشینه',
    last: 'آخرین',
    dataTable: 'جدول',
    markColumn: 'نشان',
    noData: 'داده‌ای نیست',
    summary: (facts) =>
      `خلاصه ${facts.low} ${facts.lowAt} ${facts.high} ${facts.highAt} ${facts.last} ${facts.change}`,
  },
  format: {
    formatNumber: (value) => `«${value}»`,
    formatTime: (iso) => `«${iso.slice(11, 13)}»`,
    formatAxisTime: (iso) => `«${iso.slice(11, 13)}»`,
    formatChange: (percent) => `«${percent.toFixed(1)}٪»`,
  },
};

/** The text a reader sees or hears: element content, without tags, ids and attribute values. */
function visibleText(html: string): string {
  return html.replace(/<[^>]*>/g, ' ');
}

describe('renderPriceChart', () => {
  // Low at hour 2, high at hour 5, last (hour 7) neither.
  const points = hourly([10, 12, 8, 11, 13, 20, 15, 14]);
  const html = renderPriceChart({ id: 'c1', points, range: { from, to }, text: persian });

  it('draws an SVG named by the caption and described by the summary, with no script or style', () => {
    expect(html).toMatch(/^<figure class="chart" id="c1">/);
    expect(html).toContain('<figcaption id="c1-title" class="chart-title">نمودار</figcaption>');
    expect(html).toMatch(/<svg [^>]*role="img" aria-labelledby="c1-title" aria-describedby="c1-summary"/);
    expect(html).toMatch(/<path class="chart-line" d="M[\d.,LMC ]+"/);
    expect(html).not.toMatch(/<script|style=|href=/);
  });

  it('marks the low, the high and the last with their words and values', () => {
    const marks = [
      ...html.matchAll(/<g class="chart-mark( chart-mark-last)?">.*?<text[^>]*>([^<]*)<\/text><\/g>/g),
    ].map((match) => [match[1] ?? '', match[2]]);
    expect(marks).toEqual([
      ['', 'بیشینه «20»'],
      ['', 'کمینه «8»'],
      [' chart-mark-last', 'آخرین «14»'],
    ]);
  });

  it('labels the axes with ticks from the injected formats', () => {
    expect(html).toContain('>قیمت</text>');
    expect(html).toContain('>زمان</text>');
    expect(html).toMatch(/<text class="chart-tick"[^>]*>«20»<\/text>/);
    expect(html).toMatch(/<text class="chart-tick"[^>]*>«06»<\/text>/);
  });

  it('states the summary the page wrote, from the facts of the series', () => {
    expect(html).toContain(
      '<p id="c1-summary" class="chart-summary">خلاصه «8» «02» «20» «05» «14» «40.0٪»</p>',
    );
  });

  it('offers the data as a table with the low, the high and the last named', () => {
    expect(html).toMatch(/<details class="chart-data"><summary>جدول<\/summary>/);
    expect(html).toContain('<th scope="col">زمان</th><th scope="col">قیمت</th><th scope="col">نشان</th>');
    expect(html).toContain('<tr><td>«02»</td><td>«8»</td><td>کمینه</td></tr>');
    expect(html).toContain('<tr><td>«05»</td><td>«20»</td><td>بیشینه</td></tr>');
    expect(html).toContain('<tr><td>«07»</td><td>«14»</td><td>آخرین</td></tr>');
    expect(html.match(/<tr><td>/g)).toHaveLength(points.length);
  });

  it('adds no words of its own: every letter shown comes from the page', () => {
    expect(visibleText(html)).not.toMatch(/[A-Za-z]/);
  });

  it('keeps a long series to a bounded table that still holds the extremes', () => {
    const long = hourly(
      Array.from({ length: 300 }, (_unused, index) => (index === 123 ? 1 : 100 + (index % 7))),
    );
    const table = renderPriceChart({
      id: 'c2',
      points: long,
      range: { from, to: long.at(-1)?.at ?? to },
      text: persian,
    });
    const rows = table.match(/<tr><td>/g) ?? [];
    expect(rows.length).toBeLessThanOrEqual(24 + 3);
    expect(table).toMatch(/<td>«1»<\/td><td>کمینه<\/td>/);
  });

  it('marks a point that is both the low and the last once, with both words', () => {
    const falling = renderPriceChart({
      id: 'c3',
      points: hourly([5, 4, 3]),
      range: { from, to },
      text: persian,
    });
    expect(falling.match(/<g class="chart-mark/g)).toHaveLength(2);
    expect(falling).toContain('>کمینه, آخرین «3»</text>');
  });

  it('says there is no data instead of drawing an empty chart', () => {
    const empty = renderPriceChart({ id: 'c4', points: [], range: { from, to }, text: persian });
    expect(empty).not.toContain('<svg');
    expect(empty).toContain('<p class="chart-empty">داده‌ای نیست</p>');
  });
});

describe('renderSparkline', () => {
  it('is a small image named by the words the page gives, its last point marked', () => {
    const svg = renderSparkline({
      points: hourly([3, 1, 2]),
      range: { from, to },
      label: 'روند: «1» تا «3»',
    });
    expect(svg).toMatch(/^<svg class="sparkline" [^>]*role="img" aria-label="روند: «1» تا «3»"/);
    expect(svg).toMatch(/<path class="chart-line" d="M[\d.,L ]+"/);
    expect(svg).toContain('<circle class="sparkline-last"');
    expect(visibleText(svg).trim()).toBe('');
  });

  it('escapes the label', () => {
    const svg = renderSparkline({ points: hourly([1]), range: { from, to }, label: '"><script>' });
    expect(svg).toContain('aria-label="&quot;&gt;&lt;script&gt;"');
  });
});
