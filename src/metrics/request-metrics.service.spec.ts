import { Counter, Histogram, Registry } from 'prom-client';
import type { PrometheusRegistry } from './prometheus-registry.service';
import { RequestMetrics } from './request-metrics.service';

/** The same answers recorded by prom-client's own counter and histogram, as RequestMetrics did before. */
function reference(registry: Registry) {
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by method, route pattern and status code',
    labelNames,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by method, route pattern and status code',
    labelNames,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  return (method: string, route: string, status: number, seconds: number) => {
    const labels = { method, route, status: String(status) };
    requests.inc(labels);
    duration.observe(labels, seconds);
  };
}

describe('RequestMetrics', () => {
  // Bounds exactly (a bucket counts values <= its bound), between them, zero, above the largest.
  const seconds = [0, 0.001, 0.005, 0.0051, 0.01, 0.03, 0.1, 0.2501, 1, 2.5, 7, 10, 10.5, 3600];
  const answers: Array<[string, string, number]> = [
    ['GET', '/api/posts', 200],
    ['GET', '/api/posts', 404],
    ['POST', '/api/posts', 201],
    ['GET', '/api/posts/:id', 200],
    ['GET', 'unmatched', 404],
    ['GET', '/api/api-keys', 429],
    ['POST', '/api/route "quoted"\\', 400],
  ];

  function recordBoth() {
    const ours = new Registry();
    const theirs = new Registry();
    const metrics = new RequestMetrics({ registry: ours } as PrometheusRegistry);
    const record = reference(theirs);
    answers.forEach(([method, route, status], i) => {
      for (const s of seconds.slice(i % 3)) {
        metrics.record(method, route, status, s);
        record(method, route, status, s);
      }
    });
    return { ours, theirs, metrics };
  }

  it('exports the same samples as prom-client would have', async () => {
    const { ours, theirs } = recordBoth();
    for (const name of ['http_requests_total', 'http_request_duration_seconds']) {
      expect(await ours.getSingleMetricAsString(name)).toBe(await theirs.getSingleMetricAsString(name));
      const json = async (r: Registry) => (await r.getMetricsAsJSON()).find((m) => m.name === name);
      expect(await json(ours)).toEqual(await json(theirs));
    }
    expect(await ours.getSingleMetricAsString('http_request_duration_seconds')).toContain(
      'http_request_duration_seconds_bucket{le="0.005",method="GET",route="/api/posts",status="200"} 3',
    );
  });

  it('counts 429 answers by route', async () => {
    const { ours } = recordBoth();
    expect(await ours.getSingleMetricAsString('rate_limit_denials_total')).toContain(
      `rate_limit_denials_total{method="GET",route="/api/api-keys"} ${seconds.length - (5 % 3)}`,
    );
  });

  it('starts again from zero when the registry is reset', async () => {
    const { ours, metrics } = recordBoth();
    ours.resetMetrics();
    expect(await ours.getSingleMetricAsString('http_request_duration_seconds')).not.toContain('_bucket');
    metrics.record('GET', '/api/posts', 200, 0.02);
    const text = await ours.getSingleMetricAsString('http_requests_total');
    expect(text).toContain('http_requests_total{method="GET",route="/api/posts",status="200"} 1');
    expect(text.split('\n').filter((l) => l.startsWith('http_requests_total{'))).toHaveLength(1);
  });
});
