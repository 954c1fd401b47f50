/**
 * The charts' styles, part of the page's one stylesheet (the Content-Security-Policy allows it by
 * hash; SVG presentation attributes carry no colour). Colours are the page's variables, so the
 * charts follow the light and dark schemes with the text's contrast.
 */
export const chartStylesheet = `
.chart{margin:1.5rem 0}
.chart-title{font-weight:700;margin-bottom:.25rem}
.chart-svg{display:block;width:100%;height:auto;max-width:36rem;color:var(--fg)}
.chart-grid{stroke:var(--line);stroke-width:1}
.chart-axis{stroke:var(--muted);stroke-width:1}
.chart-tick,.chart-axis-label,.chart-mark text{fill:var(--fg);font-size:13px;font-family:inherit}
.chart-axis-label{fill:var(--muted)}
.chart-line{stroke:var(--link);stroke-width:2;stroke-linejoin:round;stroke-linecap:round}
.chart-mark circle{fill:var(--bg);stroke:var(--fg);stroke-width:2}
.chart-mark-last circle,.sparkline-last{fill:var(--link);stroke:var(--link)}
.chart-mark text{font-weight:700}
.chart-summary{margin:.25rem 0}
.chart-data summary{cursor:pointer;min-height:44px;line-height:44px}
.sparkline{display:block;color:var(--fg)}
.sparkline .chart-line{stroke-width:1.5}
`.trim();
