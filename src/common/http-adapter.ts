import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';

import { StreamableFile } from '@nestjs/common';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyServerOptions } from 'fastify';

import type { AppConfig } from '../config/app-config';
import { fastifyTrustProxy } from '../config/trust-proxy';
import type { Envelope } from './envelope';
import { ErrorCode, localeOf, messageOf } from './error-code';

/**
 * Nest's Fastify adapter, answering every handler's result in the success envelope
 * { success, code, message, data }.
 * The adapter is where Nest hands a result to Fastify: wrapping here rather than in a global
 * interceptor keeps the request free of rxjs (an interceptor costs each request an Observable
 * chain, which bench/nest-floor.mjs shows as a large share of the floor's throughput).
 * Errors never come through here: AllExceptionsFilter sends its envelope itself. Files and streams
 * go out as they are.
 */
export class EnvelopeFastifyAdapter extends FastifyAdapter {
  /** How long a stop waits for route handlers still running once the server is closed. */
  drainMs = 10_000;
  private running = 0;
  private drained?: () => void;
  private readonly leave = () => {
    this.running -= 1;
    if (this.running === 0) this.drained?.();
  };

  constructor(options?: FastifyServerOptions & { skipMiddie?: boolean }) {
    super(options);
    this.getInstance().addHook('onRoute', (route) => {
      route.handler = this.counted(route.handler);
    });
  }

  /**
   * The route handler, counted while it runs: the promise Nest's handler returns settles once the
   * answer or the error is out. Otherwise as it was: a sync handler stays sync, the same promise is
   * returned, the same `this` passed on.
   */
  private counted<H extends (...args: never[]) => unknown>(handler: H): H {
    // The wrapper is a function, not an arrow, so that the handler keeps the `this` it is called with.
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const adapter = this;
    return function counted(this: unknown, ...args: unknown[]) {
      adapter.running += 1;
      let result: unknown;
      try {
        result = Reflect.apply(handler, this, args);
      } catch (err) {
        adapter.leave();
        throw err;
      }
      if (result instanceof Promise) result.then(adapter.leave, adapter.leave);
      else adapter.leave();
      return result;
    } as unknown as H;
  }

  override reply(response: FastifyReply, body: unknown, statusCode?: number) {
    return super.reply(response, isRaw(body) ? body : successEnvelope(body, response), statusCode);
  }

  /**
   * Nest's stop closes the server (which waits for the connections still open), then runs the
   * shutdown hooks that close the database and Redis. A handler whose client has already gone (a
   * login mid-BCrypt when the caller timed out) has no connection left to wait for: without this
   * wait it met a closed database, and its login-log row, failure count or session were lost.
   */
  override async close(): Promise<void> {
    await super.close();
    if (this.running === 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, this.drainMs);
      this.drained = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}

/**
 * Request ids (in the request logs): a random prefix drawn at start and a counter, so that ids do not
 * repeat after a restart or across instances (a bare counter from 1 would), never taken from a
 * client's header, and made per request without a UUID's random bytes and formatting.
 */
export function requestIds(): () => string {
  const prefix = randomBytes(6).toString('hex');
  let n = 0;
  return () => `${prefix}-${(++n).toString(36)}`;
}

/** The adapter the service runs on (main.ts, the tests' apps): body limit and trusted proxies from config. */
export function createHttpAdapter(config: Pick<AppConfig, 'BODY_LIMIT_BYTES' | 'TRUST_PROXY'>): EnvelopeFastifyAdapter {
  return new EnvelopeFastifyAdapter({
    bodyLimit: config.BODY_LIMIT_BYTES,
    trustProxy: fastifyTrustProxy(config.TRUST_PROXY),
    genReqId: requestIds(),
    // No Nest middleware runs here (no module configures any): without @fastify/middie, every
    // request is spared its onRequest hook. A module that adds middleware must drop this option.
    skipMiddie: true,
  });
}

// The success message in each language, looked up once rather than per answer.
const OK_MESSAGE = { zh: messageOf(ErrorCode.OK, 'zh'), en: messageOf(ErrorCode.OK, 'en') } as const;

/** The OK envelope of `data`, its message in the caller's language. */
export function successEnvelope(data: unknown, reply: FastifyReply): Envelope {
  return {
    success: true,
    code: ErrorCode.OK,
    message: OK_MESSAGE[localeOf(reply.request?.headers['accept-language'])],
    data: data ?? null,
  };
}

function isRaw(body: unknown): boolean {
  return body instanceof StreamableFile || body instanceof Readable || Buffer.isBuffer(body);
}
