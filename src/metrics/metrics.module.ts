import { Global, Module } from '@nestjs/common';
import { MetricsController } from './metrics.controller';
import { OutcomeMetrics } from './outcome-metrics.service';
import { PrometheusRegistry } from './prometheus-registry.service';
import { RequestMetrics } from './request-metrics.service';

/**
 * Operational metrics of the process for Prometheus (`GET /api/metrics`): the registry and its
 * exposition, request counters, work outcome counters. Global so any feature can record its outcomes.
 */
@Global()
@Module({
  controllers: [MetricsController],
  providers: [PrometheusRegistry, RequestMetrics, OutcomeMetrics],
  exports: [RequestMetrics, OutcomeMetrics],
})
export class MetricsModule {}
