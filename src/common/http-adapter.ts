import { StreamableFile } from '@nestjs/common';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { FastifyReply } from 'fastify';
import { Readable } from 'node:stream';
import type { AppConfig } from '../config/app-config';
import { fastifyTrustProxy } from '../config/trust-proxy';
import type { Envelope } from './envelope';
import { ErrorCode, localeOf, messageOf } from './error-code';

/**
 * Nest's Fastify adapter, answering every handler's result in the success envelope of contract §2.
 * The adapter is where Nest hands a result to Fastify: wrapping here rather than in a global
 * interceptor keeps the request free of rxjs (an interceptor costs each request an Observable
 * chain; on bench/nest-floor.mjs with one interceptor added, measured by hand on a busy machine,
 * it took roughly a third of the floor's throughput).
 * Errors never come through here: AllExceptionsFilter sends its envelope itself. Files and streams
 * go out as they are.
 */
export class EnvelopeFastifyAdapter extends FastifyAdapter {
  override reply(response: any, body: any, statusCode?: number) {
    return super.reply(response, isRaw(body) ? body : successEnvelope(body, response), statusCode);
  }
}

/** The adapter the service runs on (main.ts, the tests' apps): body limit and trusted proxies from config. */
export function createHttpAdapter(config: Pick<AppConfig, 'BODY_LIMIT_BYTES' | 'TRUST_PROXY'>): EnvelopeFastifyAdapter {
  return new EnvelopeFastifyAdapter({ bodyLimit: config.BODY_LIMIT_BYTES, trustProxy: fastifyTrustProxy(config.TRUST_PROXY) });
}

// The success message in each language, looked up once rather than per answer.
const OK_MESSAGE = { zh: messageOf(ErrorCode.OK, 'zh'), en: messageOf(ErrorCode.OK, 'en') } as const;

function successEnvelope(data: unknown, reply: FastifyReply): Envelope {
  return { success: true, code: ErrorCode.OK, message: OK_MESSAGE[localeOf(reply.request?.headers['accept-language'])], data: data ?? null };
}

function isRaw(body: unknown): boolean {
  return body instanceof StreamableFile || body instanceof Readable || Buffer.isBuffer(body);
}
