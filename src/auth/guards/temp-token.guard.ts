import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { AppException } from '../../common/app.exception';
import { ErrorCode } from '../../common/error-code';
import { AppConfig } from '../../config/app-config';

/** Spec 5.4: a temporary token (temp = 1) reaches only the TEMP_URIS paths. */
@Injectable()
export class TempTokenGuard implements CanActivate {
  private readonly allowed: Set<string>;

  constructor(config: AppConfig) {
    this.allowed = new Set(config.TEMP_URIS);
  }

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (request.auth?.session.temp !== 1) return true;
    const path = request.url.split('?')[0].replace(/\/+$/, '') || '/';
    if (!this.allowed.has(path)) throw new AppException(ErrorCode.TEMP_TOKEN_FORBIDDEN);
    return true;
  }
}
