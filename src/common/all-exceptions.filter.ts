import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { localeOf } from './error-code';
import { toEnvelope } from './http-errors';

/** Turns every exception, expected or not, into the contract's envelope and status. */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const request = ctx.getRequest<FastifyRequest>();
    const reply = ctx.getResponse<FastifyReply>();
    const { status, body } = toEnvelope(exception, localeOf(request.headers['accept-language']));
    if (status >= 500) {
      // Name and driver code only: messages of driver errors can quote SQL and values. The path
      // without its query: the message stream takes its one-time ticket as ?ticket=.
      const e = exception as any;
      this.logger.error(`${request.method} ${request.url.split('?')[0]} -> ${body.code} (${e?.name ?? typeof e}${e?.code ? ` ${e.code}` : ''})`);
    }
    void reply.status(status).header('content-type', 'application/json; charset=utf-8').send(body);
  }
}
