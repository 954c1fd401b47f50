import type { Metric, Registry } from 'prom-client';

/** Upper bounds of the buckets, in seconds: /v1/rates answers in well under a millisecond from memory. */
const bounds = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5] as const;

/** One route and status: counts per bucket (not cumulative; the last slot is above every bound). */
interface Series {
  readonly route: string;
  readonly status: number;
  readonly buckets: Float64Array;
  sum: number;
  count: number;
}

interface Sample {
  metricName: string;
  labels: Record<string, string | number>;
  value: number;
}

/**
 * `nerkh_http_request_duration_seconds{route,status_code}`: a Prometheus histogram of the time to
 * answer each request, exposed through the registry like any prom-client metric.
 *
 * Hand-written because prom-client's `Histogram.observe` rebuilds a label hash string, validates
 * the labels and turns the bucket bound into a property name on every call, several percent of a
 * /v1/rates request; this one is a scan of 12 bounds and three additions, after two Map lookups
 * only when the series is not the previous observation's (under load nearly every request is a
 * `/v1/rates` 200; docs/decisions/0034-histogram-keeps-the-previous-series.md). The text is built
 * by prom-client from `get()`, in the shape its own Histogram returns.
 */
export class RequestDurations {
  readonly name = 'nerkh_http_request_duration_seconds';
  readonly help =
    'Time to answer a request, by route template and status code (the _count is the request counter).';
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  /** route → status code → series; both keys are bounded (route templates, HTTP status codes). */
  readonly #series = new Map<string, Map<number, Series>>();
  /** The series of the previous observation. */
  #last: Series | null = null;

  constructor(registry: Registry) {
    // prom-client types a registered metric as one of its own classes; `get()` is all the registry reads.
    registry.registerMetric(this as unknown as Metric);
  }

  observe(route: string, statusCode: number, seconds: number): void {
    let series = this.#last;
    if (series === null || series.status !== statusCode || series.route !== route) {
      series = this.#seriesOf(route, statusCode);
      this.#last = series;
    }
    let slot = 0;
    while (slot < bounds.length && seconds > (bounds[slot] as number)) slot++;
    series.buckets[slot] = (series.buckets[slot] as number) + 1;
    series.sum += seconds;
    series.count++;
  }

  #seriesOf(route: string, statusCode: number): Series {
    let byStatus = this.#series.get(route);
    if (byStatus === undefined) {
      byStatus = new Map();
      this.#series.set(route, byStatus);
    }
    let series = byStatus.get(statusCode);
    if (series === undefined) {
      series = {
        route,
        status: statusCode,
        buckets: new Float64Array(bounds.length + 1),
        sum: 0,
        count: 0,
      };
      byStatus.set(statusCode, series);
    }
    return series;
  }

  async get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: Sample[] }> {
    const values: Sample[] = [];
    for (const byStatus of this.#series.values()) {
      for (const series of byStatus.values()) {
        const labels = { route: series.route, status_code: String(series.status) };
        let cumulative = 0;
        bounds.forEach((bound, slot) => {
          cumulative += series.buckets[slot] as number;
          values.push({
            metricName: `${this.name}_bucket`,
            labels: { le: bound, ...labels },
            value: cumulative,
          });
        });
        values.push({
          metricName: `${this.name}_bucket`,
          labels: { le: '+Inf', ...labels },
          value: series.count,
        });
        values.push({ metricName: `${this.name}_sum`, labels, value: series.sum });
        values.push({ metricName: `${this.name}_count`, labels, value: series.count });
      }
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}
