import { Injectable } from '@nestjs/common';
import { Counter, Histogram, type MetricObjectWithValues, type MetricValueWithName } from 'prom-client';
import { PrometheusRegistry } from './prometheus-registry.service';

type Label = 'method' | 'route' | 'status';

/** Upper bounds (seconds) of the latency histogram's buckets. */
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

const NAME = 'http_request_duration_seconds';
const HELP = 'HTTP request latency by method, route pattern and status code';

/** The answers of one method, route pattern and status: what the request path writes. */
interface Tally {
  labels: Record<Label, string>;
  count: number;
  sum: number;
  /** Answers per bucket, not cumulative; the last slot is above the largest bound. */
  perBucket: Float64Array;
}

/** A Prometheus sample as prom-client's registry formats it (the bucket's `le` first, then the labels). */
interface Sample {
  labels: Record<string, string | number>;
  sharedLabels: Record<string, string>;
  value: number;
  metricName: string;
  /** null on buckets, as prom-client's (this service records none). */
  exemplar?: null;
}

/**
 * `http_request_duration_seconds`, read from the tallies at scrape time. A prom-client Histogram, so it
 * registers, resets and is exported like one, with the same samples in the same order as prom-client's
 * own would give for the same answers (request-metrics.service.spec.ts compares the two).
 */
class TalliedHistogram extends Histogram<Label> {
  constructor(
    registry: PrometheusRegistry['registry'],
    private readonly tallies: Map<string, Tally>,
  ) {
    super({
      name: NAME,
      help: HELP,
      labelNames: ['method', 'route', 'status'],
      buckets: [...BUCKETS],
      registers: [registry],
    });
  }

  /** What the registry's text exposition reads (it prefers this to get()). */
  getForPromString(): Promise<MetricObjectWithValues<MetricValueWithName<Label>>> {
    const bucketName = `${NAME}_bucket`;
    const values: Sample[] = [];
    for (const { labels, count, sum, perBucket } of this.tallies.values()) {
      let cumulative = 0;
      BUCKETS.forEach((le, i) => {
        cumulative += perBucket[i];
        values.push({
          labels: { le },
          sharedLabels: labels,
          value: cumulative,
          metricName: bucketName,
          exemplar: null,
        });
      });
      values.push({
        labels: { le: '+Inf' },
        sharedLabels: labels,
        value: count,
        metricName: bucketName,
        exemplar: null,
      });
      values.push({ labels: {}, sharedLabels: labels, value: sum, metricName: `${NAME}_sum` });
      values.push({ labels: {}, sharedLabels: labels, value: count, metricName: `${NAME}_count` });
    }
    // The registry reads these fields only; prom-client's types describe its own classes' objects.
    const data = { name: NAME, help: HELP, type: 'histogram', aggregator: 'sum', values };
    return Promise.resolve(data as unknown as MetricObjectWithValues<MetricValueWithName<Label>>);
  }

  override async get(): Promise<MetricObjectWithValues<MetricValueWithName<Label>>> {
    const data = await this.getForPromString();
    data.values = (data.values as unknown as Sample[]).map(({ labels, sharedLabels, ...sample }) => ({
      ...sample,
      labels: { ...labels, ...sharedLabels },
    }));
    return data;
  }

  override reset(): void {
    // prom-client's constructor resets the metric too, before this class's fields are set.
    (this.tallies as Map<string, Tally> | undefined)?.clear();
  }
}

/**
 * HTTP request counters of this process, recorded by the HTTP layer (app.factory.ts) for every answer.
 *
 * The request path only adds to a tally per method, route and status (a map lookup and three
 * additions); the samples are made from the tallies when Prometheus scrapes. prom-client's own
 * counter and histogram would hash the labels, validate them and search the buckets through generic
 * code on every request, which the auth benchmark's profile showed among our largest costs per request
 * beyond the bare server's (docs/adr/0046).
 */
@Injectable()
export class RequestMetrics {
  private readonly tallies = new Map<string, Tally>();
  private readonly rateLimitDenials: Counter<'method' | 'route'>;

  constructor(prometheus: PrometheusRegistry) {
    const registers = [prometheus.registry];
    const tallies = this.tallies;
    new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests by method, route pattern and status code',
      labelNames: ['method', 'route', 'status'] as const,
      registers,
      collect() {
        this.reset();
        for (const { labels, count } of tallies.values()) this.inc(labels, count);
      },
    });
    new TalliedHistogram(prometheus.registry, tallies);
    this.rateLimitDenials = new Counter({
      name: 'rate_limit_denials_total',
      help: 'Requests refused with 429 (per-key bucket, failed-authentication limit, refresh cooldown), by route',
      labelNames: ['method', 'route'] as const,
      registers,
    });
  }

  record(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${status} ${route}`;
    let tally = this.tallies.get(key);
    if (!tally) {
      tally = {
        labels: { method, route, status: String(status) },
        count: 0,
        sum: 0,
        perBucket: new Float64Array(BUCKETS.length + 1),
      };
      this.tallies.set(key, tally);
    }
    tally.count++;
    tally.sum += seconds;
    let bucket = 0;
    while (bucket < BUCKETS.length && seconds > BUCKETS[bucket]) bucket++;
    tally.perBucket[bucket]++;
    if (status === 429) this.rateLimitDenials.inc({ method, route });
  }
}
