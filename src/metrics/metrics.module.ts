import { Module, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';

import { AppConfig } from '../config/app-config';
import { MetricsController } from './metrics.controller';
import { MetricsService } from './metrics.service';

/** Answers that matched no route (404s, scans): one label value, whatever the URL was. */
const UNMATCHED = '(unmatched)';

/**
 * Metrics. With METRICS_TOKEN unset the service answers no /metrics and times no
 * request (the counters still count: a handful of additions per login).
 */
@Module({
  controllers: [MetricsController],
  providers: [MetricsService],
})
export class MetricsModule implements OnModuleInit {
  constructor(
    private readonly metrics: MetricsService,
    private readonly config: AppConfig,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  onModuleInit() {
    if (!this.config.METRICS_TOKEN) return;
    const fastify = this.adapterHost.httpAdapter?.getInstance?.() as FastifyInstance | undefined;
    if (!fastify?.addHook) return;
    // Fastify's own timer (reply.elapsedTime) and its matched pattern (routeOptions.url): no
    // per-request state of ours, and never the raw URL with its ids or query.
    fastify.addHook('onResponse', (request, reply, done) => {
      this.metrics.observeHttp(
        request.routeOptions.url ?? UNMATCHED,
        request.method,
        reply.statusCode,
        reply.elapsedTime / 1_000,
      );
      done();
    });
  }
}
