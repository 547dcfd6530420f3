import { createServer, type Server } from 'node:http';
import { createHash, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { ModuleRef } from '@nestjs/core';
import { Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { runsHttp } from '../app-role';
import { appConfig } from '../config';
import { metricsConfig } from '../config/metrics.config';
import { QUEUE_STATES, readQueueDepths } from '../queue/queue-depths';

/** Every Bull queue of the service; a process reports the ones its role registers. */
const QUEUES = ['publish', 'webhooks', 'analytics', 'media'] as const;

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/**
 * The Prometheus registry of this process, of its own (so several apps in one process, as in tests,
 * never collide), and its exposition: `GET /api/metrics` (MetricsController) or, in a worker-only
 * process, its own port. Holds the process's default metrics and the queue depths, read from Redis at
 * scrape time; the counters that code records live in RequestMetrics (the HTTP layer) and
 * OutcomeMetrics (publishing, webhook deliveries). Not analytics: a post's figures on a network are
 * collected by src/analytics/.
 */
@Injectable()
export class PrometheusRegistry implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly registry = new Registry();
  private readonly logger = new Logger('Metrics');
  private readonly tokenDigest: Buffer | null;
  private workerServer?: Server;

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
