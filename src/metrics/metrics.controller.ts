import { Controller, Get, Header, Headers } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { createHash, timingSafeEqual } from 'node:crypto';
import { AppException } from '../common/app.exception';
import { Public } from '../common/auth-context';
import { ErrorCode } from '../common/error-code';
import { AppConfig } from '../config/app-config';
import { MetricsService } from './metrics.service';

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * Contract §10: GET /metrics in the Prometheus text format, for `Authorization: Bearer
 * <METRICS_TOKEN>` only (NOT_LOGGED_IN otherwise, in the envelope); 404 when METRICS_TOKEN is unset.
 * Not a session route: a scraper holds no login. Left out of the OpenAPI document, which describes
 * the JSON API.
 */
@ApiExcludeController()
@Controller('metrics')
export class MetricsController {
  private readonly expected: Buffer | null;

  constructor(private readonly metrics: MetricsService, config: AppConfig) {
    this.expected = config.METRICS_TOKEN ? digest(config.METRICS_TOKEN) : null;
  }

  @Get() @Public()
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
