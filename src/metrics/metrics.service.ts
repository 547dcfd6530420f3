import { createServer, type Server } from 'node:http';
import { createHash, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { ModuleRef } from '@nestjs/core';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { runsHttp } from '../app-role';
import { appConfig } from '../config';
import { metricsConfig } from '../config/metrics.config';
import { QUEUE_STATES, readQueueDepths } from '../queue/queue-depths';

/** Every Bull queue of the service; a process reports the ones its role registers. */
const QUEUES = ['publish', 'webhooks', 'analytics', 'media'] as const;

export type PublishOutcomeLabel = 'published' | 'failed' | 'retry';
export type WebhookOutcomeLabel = 'delivered' | 'failed' | 'retry';

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/**
 * Prometheus metrics of this process, in a registry of its own (so several apps in one process, as in
 * tests, never collide). Feature code records outcomes through the `record*` methods; the HTTP layer
 * records every request; queue depths are read from Redis at scrape time.
 */
@Injectable()
export class MetricsService implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly registry = new Registry();
  private readonly logger = new Logger('Metrics');
  private readonly tokenDigest: Buffer | null;
  private workerServer?: Server;

  private readonly httpRequests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by method, route pattern and status code',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  private readonly httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by method, route pattern and status code',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  private readonly publishOutcomes = new Counter({
    name: 'publish_outcomes_total',
    help: 'Publish attempts by provider and outcome (published, failed, retry)',
    labelNames: ['provider', 'outcome'] as const,
    registers: [this.registry],
  });
  private readonly webhookOutcomes = new Counter({
    name: 'webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome (delivered, failed = given up, retry = will try again)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  private readonly rateLimitDenials = new Counter({
    name: 'rate_limit_denials_total',
    help: 'Requests refused with 429 (per-key bucket, failed-authentication limit, refresh cooldown), by route',
    labelNames: ['method', 'route'] as const,
    registers: [this.registry],
  });

  constructor(
    private readonly moduleRef: ModuleRef,
    @Inject(metricsConfig.KEY) private readonly cfg: ConfigType<typeof metricsConfig>,
    @Inject(appConfig.KEY) private readonly app: ConfigType<typeof appConfig>,
  ) {
    this.tokenDigest = cfg.token ? digest(cfg.token) : null;
    collectDefaultMetrics({ register: this.registry });
    const refs = this.moduleRef;
    new Gauge({
      name: 'queue_jobs',
      help: 'Jobs per Bull queue and state, read from Redis at scrape time',
      labelNames: ['queue', 'state'] as const,
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const { queue, counts } of await readQueueDepths(refs, QUEUES)) {
          for (const state of QUEUE_STATES) this.set({ queue, state }, counts[state]);
        }
      },
    });
  }

  /** Metrics are served only when METRICS_TOKEN is set. */
  get enabled(): boolean {
    return this.tokenDigest !== null;
  }

  /** True for `Bearer <METRICS_TOKEN>` (constant-time comparison). */
  authorized(header: string | undefined): boolean {
    if (!this.tokenDigest || !header?.startsWith('Bearer ')) return false;
    return timingSafeEqual(digest(header.slice('Bearer '.length).trim()), this.tokenDigest);
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  recordRequest(method: string, route: string, status: number, seconds: number): void {
    const labels = { method, route, status: String(status) };
    this.httpRequests.inc(labels);
    this.httpDuration.observe(labels, seconds);
    if (status === 429) this.rateLimitDenials.inc({ method, route });
  }

  recordPublish(provider: string, outcome: PublishOutcomeLabel): void {
    this.publishOutcomes.inc({ provider, outcome });
  }

  recordWebhookDelivery(outcome: WebhookOutcomeLabel): void {
    this.webhookOutcomes.inc({ outcome });
  }

  /** A worker-only process has no HTTP server: it serves `/metrics` on METRICS_WORKER_PORT when set. */
  async onApplicationBootstrap(): Promise<void> {
    if (runsHttp(this.app.role) || !this.enabled || this.cfg.workerPort === 0) return;
    const server = createServer((req, res) => {
      void (async () => {
        if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
          res.writeHead(404).end();
        } else if (!this.authorized(req.headers.authorization)) {
          res.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
        } else {
          res.writeHead(200, { 'content-type': this.contentType }).end(await this.render());
        }
      })().catch((err: Error) => {
        this.logger.warn(`Metrics scrape failed: ${err.message}`);
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(this.cfg.workerPort, this.app.host, resolve));
    this.workerServer = server;
    this.logger.log(`Worker metrics on http://${this.app.host}:${this.cfg.workerPort}/metrics`);
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.workerServer;
    if (server) await new Promise((resolve) => server.close(resolve));
  }
}
