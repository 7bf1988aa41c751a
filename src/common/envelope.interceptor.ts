import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { map, Observable } from 'rxjs';
import { Envelope } from './envelope';
import { ErrorCode, localeOf, messageOf } from './error-code';

/** Wraps whatever a handler returns into the success envelope of contract §2. */
@Injectable()
export class EnvelopeInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<Envelope> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const locale = localeOf(request.headers['accept-language']);
    return next.handle().pipe(
      map((data) => ({ success: true, code: ErrorCode.OK, message: messageOf(ErrorCode.OK, locale), data: data ?? null })),
    );
  }
}
