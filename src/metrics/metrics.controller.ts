import { Controller, Get, Headers, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { AppError } from '../common/errors';
import { Public } from '../common/decorators/public.decorator';
import { PrometheusRegistry } from './prometheus-registry.service';

/**
 * Prometheus scrape endpoint. Outside the API key scheme (it is an operator's endpoint, not a workspace's):
 * 404 unless METRICS_TOKEN is set, then 401 without `Authorization: Bearer <METRICS_TOKEN>`.
 */
@ApiExcludeController()
@Controller('metrics')
export class MetricsController {
  constructor(private readonly prometheus: PrometheusRegistry) {}

  @Get()
  @Public()
  async scrape(
    @Headers('authorization') authorization: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    if (!this.prometheus.enabled) throw AppError.notFound('Route');
    if (!this.prometheus.authorized(authorization)) {
      throw new AppError('UNAUTHORIZED', 'Metrics need Authorization: Bearer <METRICS_TOKEN>', undefined, {
        'WWW-Authenticate': 'Bearer',
      });
    }
    void reply.header('content-type', this.prometheus.contentType);
    return this.prometheus.render();
  }
}
