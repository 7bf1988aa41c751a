import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import type { FastifyReply, FastifyRequest } from 'fastify';

import { AccessDeniedEvent } from './access-denied.event';
import { AccessDenied, AppException } from './app.exception';
import { actorOf, isApiKey } from './auth-context';
import { ErrorCode, localeOf } from './error-code';
import { toEnvelope } from './http-errors';

/**
 * Turns every exception, expected or not, into the API's envelope and status; a FORBIDDEN
 * answer to a logged-in caller is also announced for the audit log (`access.denied`).
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  constructor(private readonly events: EventEmitter2) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    this.answer(exception, ctx.getRequest<FastifyRequest>(), ctx.getResponse<FastifyReply>());
  }

  /** The answer to `exception`, also for a request a fast lane took from Nest (common/fast-lane.ts). */
  answer(exception: unknown, request: FastifyRequest, reply: FastifyReply): void {
    const { status, body } = toEnvelope(exception, localeOf(request.headers['accept-language']));
    // A shed login (Retry-After) is summed up by its own log line, not one error per request of a flood.
    const shed = exception instanceof AppException && exception.retryAfterSeconds !== undefined;
    if (status >= 500 && !shed) {
      // Name and driver code only: messages of driver errors can quote SQL and values. The path
      // without its query: the message stream takes its one-time ticket as ?ticket=.
      const e = exception as { name?: string; code?: unknown } | null | undefined;
      this.logger.error(
        `${request.method} ${request.url.split('?')[0]} -> ${body.code} (${e?.name ?? typeof e}${e?.code ? ` ${e.code}` : ''})`,
      );
    }
    if (shed) reply.header('retry-after', String(exception.retryAfterSeconds));
    const send = () => void reply.status(status).header('content-type', 'application/json; charset=utf-8').send(body);
    if (body.code === ErrorCode.FORBIDDEN && request.auth && exception instanceof AppException) {
      // The answer waits for the audit row: a client that has its refusal can read it in the log.
      void this.announceDenied(request, exception)
        .catch(() => undefined)
        .finally(send);
    } else {
      send();
    }
  }

  private announceDenied(request: FastifyRequest, exception: AppException): Promise<unknown> {
    const caller = request.auth!;
    const denied = exception instanceof AccessDenied ? exception : undefined;
    return this.events.emitAsync(
      AccessDeniedEvent.NAME,
      new AccessDeniedEvent(
        actorOf(request),
        isApiKey(caller) ? `apikey:${caller.apiKey.id}` : caller.tokenHash,
        request.url.split('?')[0].slice(0, 128),
        denied?.missing ?? [],
        denied?.target,
      ),
    );
  }
}
