import { Injectable } from '@nestjs/common';
import { Counter, Histogram } from 'prom-client';
import { PrometheusRegistry } from './prometheus-registry.service';

/** HTTP request counters of this process, recorded by the HTTP layer (app.factory.ts) for every answer. */
@Injectable()
export class RequestMetrics {
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly duration: Histogram<'method' | 'route' | 'status'>;
  private readonly rateLimitDenials: Counter<'method' | 'route'>;

  constructor(prometheus: PrometheusRegistry) {
    const registers = [prometheus.registry];
    this.requests = new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests by method, route pattern and status code',
      labelNames: ['method', 'route', 'status'] as const,
      registers,
    });
    this.duration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request latency by method, route pattern and status code',
      labelNames: ['method', 'route', 'status'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.rateLimitDenials = new Counter({
      name: 'rate_limit_denials_total',
      help: 'Requests refused with 429 (per-key bucket, failed-authentication limit, refresh cooldown), by route',
      labelNames: ['method', 'route'] as const,
      registers,
    });
  }

  record(method: string, route: string, status: number, seconds: number): void {
    const labels = { method, route, status: String(status) };
    this.requests.inc(labels);
    this.duration.observe(labels, seconds);
    if (status === 429) this.rateLimitDenials.inc({ method, route });
  }
}
