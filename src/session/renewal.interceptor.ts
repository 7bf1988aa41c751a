import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { from, Observable, switchMap } from 'rxjs';
import { SessionService } from './session.service';

/** Spec 3.4: every authenticated request may renew its normal token (and its permission cache). */
@Injectable()
export class RenewalInterceptor implements NestInterceptor {
  constructor(private readonly sessions: SessionService) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const auth = request.auth;
    if (!auth) return next.handle();
    return from(this.sessions.renewIfDue(auth.tokenHash, auth.session)).pipe(
      switchMap((session) => {
        auth.session = session;
        return next.handle();
      }),
    );
  }
}
