import { createHash, timingSafeEqual } from 'node:crypto';

import { Controller, Get, Header, Headers } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';

import { ApiDoc } from '../common/api-docs';
import { AppException } from '../common/app.exception';
import { Public } from '../common/auth-context';
import { ErrorCode } from '../common/error-code';
import { AppConfig } from '../config/app-config';
import { MetricsService } from './metrics.service';

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * GET /metrics in the Prometheus text format, for `Authorization: Bearer
 * <METRICS_TOKEN>` only (NOT_LOGGED_IN otherwise, in the envelope); 404 when METRICS_TOKEN is unset.
 * Not a session route: a scraper holds no login. @Public only lets it past the session guard; the
 * OpenAPI document says what it does ask for (@ApiDoc bearerToken: x-bearer-token, a bearer scheme).
 */
@ApiTags('operations')
@Controller('metrics')
export class MetricsController {
  private readonly expected: Buffer | null;

  constructor(
    private readonly metrics: MetricsService,
    config: AppConfig,
  ) {
    this.expected = config.METRICS_TOKEN ? digest(config.METRICS_TOKEN) : null;
  }

  @Get()
  @Public()
  @ApiDoc('Prometheus metrics (bearer METRICS_TOKEN, not a session; 404 while METRICS_TOKEN is unset)', {
    bearerToken: 'METRICS_TOKEN',
    errors: [ErrorCode.NOT_FOUND],
    produces: {
      contentType: 'text/plain',
      description:
        'the Prometheus text exposition format (text/plain; version=0.0.4; charset=utf-8): login attempts, ' +
        "login duration, account locks, sessions issued, notifications and the process's default metrics; no label carries a user, an account or an IP",
    },
    description:
      'For a Prometheus scraper: send `Authorization: Bearer <METRICS_TOKEN>` (the value configured in METRICS_TOKEN). ' +
      'A missing or wrong token answers NOT_LOGGED_IN in the envelope; with METRICS_TOKEN unset the route answers NOT_FOUND (404). ' +
      'A session token from /sys/login is not accepted here.',
  })
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  async scrape(@Headers('authorization') authorization?: string): Promise<Buffer> {
    if (!this.expected) throw new AppException(ErrorCode.NOT_FOUND);
    const given = /^Bearer (\S+)$/i.exec(authorization ?? '')?.[1] ?? '';
    // Digests of equal length, compared in constant time: neither the token's length nor a prefix leaks.
    if (!timingSafeEqual(digest(given), this.expected)) throw new AppException(ErrorCode.NOT_LOGGED_IN);
    // A Buffer goes out as it is (the adapter wraps only JSON results in the envelope).
    return Buffer.from(await this.metrics.text());
  }
}
