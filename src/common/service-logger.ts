import { AsyncLocalStorage } from 'node:async_hooks';

import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerHookHandler } from 'fastify';
import { Logger, Params, PinoLogger } from 'nestjs-pino';
import pino, { DestinationStream, Level, LevelWithSilent } from 'pino';

import type { AppConfig } from '../config/app-config';
import { StartFailure } from './start-failure';

export type LogFormat = 'json' | 'pretty';

/**
 * JSON lines unless a person is watching: pretty only when stdout is a terminal and NODE_ENV is
 * not production. A pipe (a container runtime, systemd, a log shipper, a test reading the output)
 * gets JSON whatever NODE_ENV says, because whatever reads a pipe is a program. LOG_FORMAT decides
 * when set.
 */
export function logFormatOf(
  config: Pick<AppConfig, 'LOG_FORMAT'>,
  env: Record<string, string | undefined> = process.env,
  terminal = !!process.stdout.isTTY,
): LogFormat {
  if (config.LOG_FORMAT) return config.LOG_FORMAT;
  return terminal && env.NODE_ENV !== 'production' ? 'pretty' : 'json';
}

/** LOG_LEVEL keeps Nest's names (log, verbose) and takes pino's (info, trace) as well. */
export function pinoLevelOf(level: string): LevelWithSilent {
  return ({ log: 'info', verbose: 'trace' } as Record<string, LevelWithSilent>)[level] ?? (level as LevelWithSilent);
}

/**
 * Request headers that carry a credential: the session token, the metrics bearer token, cookies.
 * Removed rather than masked: a log reader has no use for them, and `[Redacted]` keeps the line's
 * shape for the rest.
 */
const SECRET_HEADERS = ['authorization', 'admin-token', 'cookie', 'proxy-authorization', 'x-api-key'];

/**
 * Body and object fields that carry a password, a code, a token or a secret. Bodies are not
 * logged; these guard the day someone logs one, or an object holding one, anyway.
 */
const SECRET_FIELDS = [
  'password',
  'oldPass',
  'newPass',
  'code',
  'imgCode',
  'captcha',
  'recoveryCode',
  'recoveryCodes',
  'token',
  'accessToken',
  'mfaToken',
  'ticket',
  'secret',
  'otpauthUrl',
  'qrcode',
  'qrCode',
];

export const REDACTED_PATHS: string[] = [
  ...SECRET_HEADERS.map((h) => `req.headers["${h}"]`),
  'res.headers["set-cookie"]',
  ...SECRET_FIELDS.flatMap((f) => [f, `*.${f}`, `req.body.${f}`]),
];

/** Query parameters whose value is a credential: `?ticket=` of the message stream, and any guess of a client. */
const SECRET_QUERY = /ticket|token|code|pass|secret|key|sign|auth|session/i;

/** The URL as logged: the path, and the query with every credential's value replaced. */
export function loggableUrl(url: string | undefined): string {
  if (!url) return '';
  const at = url.indexOf('?');
  if (at < 0) return url;
  const params = new URLSearchParams(url.slice(at + 1));
  const shown: string[] = [];
  for (const [name, value] of params)
    shown.push(`${encodeURIComponent(name)}=${SECRET_QUERY.test(name) ? '[Redacted]' : encodeURIComponent(value)}`);
  return shown.length ? `${url.slice(0, at)}?${shown.join('&')}` : url.slice(0, at);
}

/** Health and metrics probes arrive every few seconds from the platform: their successes only at debug. */
const PROBES = /^\/(health|metrics)(\/|\?|$)/;

/**
 * The service's pino logger, built by nestjs-pino (through pino-http's factory, which wraps the
 * `req` and `res` serializers) for Nest's lines, ours, and one line per finished request written by
 * ServiceLogger.logRequests. Fastify's own request logging stays off, so there is no second one.
 * `stream`: where the lines go (the tests' capture); stdout otherwise.
 */
export function loggerParams(
  config: Pick<AppConfig, 'LOG_LEVEL' | 'LOG_FORMAT'>,
  options: { format?: LogFormat; stream?: DestinationStream } = {},
): Params {
  const format = options.format ?? logFormatOf(config);
  const root = {
    level: pinoLevelOf(config.LOG_LEVEL),
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
    redact: { paths: REDACTED_PATHS, censor: '[Redacted]' },
    serializers: {
      // Without `query` and `params` (pino's default has them): they would repeat the URL's credentials.
      req: (req: { method: string; url: string; headers: unknown; remoteAddress: string }) => ({
        method: req.method,
        url: loggableUrl(req.url),
        headers: req.headers,
        remoteAddress: req.remoteAddress,
      }),
    },
  };
  const stream = options.stream ?? (format === 'pretty' ? prettyStream() : undefined);
  return { pinoHttp: stream ? [root, stream] : root };
}

/**
 * The level of a finished request's line: 5xx are errors, the platform's probes debug, the rest info.
 * A 503 with Retry-After is a login shed on purpose (docs/operations.md#login-storms), info: a flood
 * sheds thousands, and the compare budget logs how many every 10 s.
 */
export function requestLevel(url: string, statusCode: number, retryAfter = false): Level {
  if (statusCode === 503 && retryAfter) return 'info';
  if (statusCode >= 500) return 'error';
  return PROBES.test(url) ? 'debug' : 'info';
}

/**
 * pino-pretty, in this thread and synchronous, so that the last line before an exit is on the
 * screen. A development dependency: a production install without it writes JSON instead.
 */
function prettyStream(): DestinationStream | undefined {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const pretty = require('pino-pretty') as (options: object) => DestinationStream;
    // One line per entry: the context before the message, a request's time after it.
    return pretty({
      sync: true,
      // ISO 8601 with the local offset, as the JSON lines' `time` is ISO 8601 (in UTC).
      translateTime: "SYS:yyyy-mm-dd'T'HH:MM:ss.lp",
      singleLine: true,
      ignore: 'pid,hostname,context,req,res,reqId,responseTime',
      messageFormat: '{if context}[{context}] {end}{msg}{if responseTime} ({responseTime} ms){end}',
    });
  } catch {
    return undefined;
  }
}

/** The request a line is written in: its id, and the child logger made for it at its first line. */
interface RequestScope {
  id: string;
  child?: pino.Logger;
}
const requestScope = new AsyncLocalStorage<RequestScope>();

/**
 * nestjs-pino's logger, whose lines written while a request's handler runs carry the request's id.
 * The child logger that adds it is made at the request's first line, not for every request: most
 * write none, and a child runs its binding through the redaction.
 */
class RequestScopedPinoLogger extends PinoLogger {
  override get logger(): pino.Logger {
    const scope = requestScope.getStore();
    if (!scope) return super.logger;
    scope.child ??= PinoLogger.root.child({ reqId: scope.id });
    return scope.child;
  }
}

/**
 * nestjs-pino's logger that writes a StartFailure as the one line it is meant to be. Nest's
 * ExceptionHandler logs whatever ends the module initialisation as an Error, stack and all;
 * main.ts logs the listen errors here too.
 */
export class ServiceLogger extends Logger {
  static create(params: Params): ServiceLogger {
    return new ServiceLogger(new RequestScopedPinoLogger(params), params);
  }

  /**
   * One line per finished request (method, URL without credentials, status, time), and the
   * request's id on every line written while its handler runs. The line is built in Fastify's
   * onResponse only when its level is on, from the same serializers, so that a request whose line is
   * not written pays for no serialising or redaction of its headers (docs/benchmarks.md measures it).
   */
  logRequests(fastify: FastifyInstance): void {
    // The handler's context, after the body is read: a stream's events would lose an earlier one.
    fastify.addHook('preHandler', (request, _reply, done) => {
      requestScope.run({ id: request.id }, done);
    });
    fastify.addHook('onResponse', (request, reply, done) => {
      writeRequestLine(request, reply);
      done();
    });
    // A hijacked reply (the message stream) has onResponse only when it ends itself; one the client
    // or a stop closes has its line when it closes.
    fastify.addHook('onRoute', (route) => {
      if (!(route.config as { [HIJACKS]?: boolean } | undefined)?.[HIJACKS]) return;
      const closing: preHandlerHookHandler = (request, reply, done) => {
        reply.raw.once('close', () => {
          if (!reply.raw.writableFinished) writeRequestLine(request, reply);
        });
        done();
      };
      route.preHandler = [...[route.preHandler ?? []].flat(), closing];
    });
  }

  /**
   * Nest's start-up detail (a line per module loaded and per route mapped) only at debug: at the
   * default level a start is a few lines an operator reads. So is Nest's "successfully started",
   * written before the port is bound; main.ts says "started" once it is.
   */
  override log(message: unknown, ...optionalParams: unknown[]) {
    const context = optionalParams.at(-1);
    if (
      typeof context === 'string' &&
      (START_DETAIL.has(context) || (context === 'NestApplication' && message === NEST_READY))
    )
      return super.debug(message, ...optionalParams);
    return super.log(message, ...optionalParams);
  }

  override error(message: unknown, ...optionalParams: unknown[]) {
    if (message instanceof StartFailure) return super.error(`Cannot start: ${message.message}`, 'Start');
    // app.listen() logs its error ("Error: listen EADDRINUSE: …") before it rejects; main.ts turns
    // the rejection into the StartFailure line, so this would be a second line about one failure.
    if (
      optionalParams.at(-1) === 'NestApplication' &&
      typeof message === 'string' &&
      message.startsWith('Error: listen ')
    )
      return;
    return super.error(message, ...optionalParams);
  }
}

/** The contexts of Nest's lines per module (InstanceLoader) and per route (RoutesResolver, RouterExplorer). */
const START_DETAIL = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer']);
/** Nest's line at the end of app.init(), before listen() binds the port. */
const NEST_READY = 'Nest application successfully started';

/** Route config (Nest's `@RouteConfig(HIJACKING)`) of a route that answers on the raw response itself. */
const HIJACKS = 'hijacksReply';
export const HIJACKING = { [HIJACKS]: true };

function writeRequestLine(request: FastifyRequest, reply: FastifyReply): void {
  const root = PinoLogger.root;
  const level = requestLevel(request.url, reply.statusCode, reply.hasHeader('retry-after'));
  if (!root.isLevelEnabled(level)) return;
  const message = `${request.method} ${loggableUrl(request.url)} ${reply.statusCode}`;
  // Fastify hands its headers to writeHead, so the raw response holds none: the reply's, in the shape
  // pino's response serializer reads.
  const res = { headersSent: true, statusCode: reply.statusCode, getHeaders: () => reply.getHeaders() };
  root[level]({ reqId: request.id, req: request.raw, res, responseTime: Math.round(reply.elapsedTime) }, message);
}
