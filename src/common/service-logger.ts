import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

import { RequestMethod } from '@nestjs/common';
import { Logger, Params, PinoLogger } from 'nestjs-pino';
import pino, { DestinationStream, LevelWithSilent } from 'pino';

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
 * What nestjs-pino and pino-http are built from: one pino logger for Nest's lines, ours, and one
 * line per finished request (Fastify's own request logging stays off, so there is no second one).
 * `stream`: where the lines go (the tests' capture); stdout otherwise.
 */
export function loggerParams(
  config: Pick<AppConfig, 'LOG_LEVEL' | 'LOG_FORMAT'>,
  options: { format?: LogFormat; stream?: DestinationStream } = {},
): Params {
  const format = options.format ?? logFormatOf(config);
  const http = {
    level: pinoLevelOf(config.LOG_LEVEL),
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
    redact: { paths: REDACTED_PATHS, censor: '[Redacted]' },
    // Fastify's request id (random, http-adapter.ts) when there is one, so that both name a request alike.
    genReqId: () => randomUUID(),
    // Lines written inside a request carry its id only; the request itself is on its last line.
    quietReqLogger: true,
    serializers: {
      // Without `query` and `params` (pino's default has them): they would repeat the URL's credentials.
      req: (req: { method: string; url: string; headers: unknown; remoteAddress: string }) => ({
        method: req.method,
        url: loggableUrl(req.url),
        headers: req.headers,
        remoteAddress: req.remoteAddress,
      }),
    },
    customLogLevel: (req: IncomingMessage, res: ServerResponse, err?: Error): LevelWithSilent => {
      if (err || res.statusCode >= 500) return 'error';
      return PROBES.test(req.url ?? '') ? 'debug' : 'info';
    },
    customSuccessMessage: (req: IncomingMessage, res: ServerResponse) =>
      `${req.method} ${loggableUrl(req.url)} ${res.statusCode}`,
    customErrorMessage: (req: IncomingMessage, res: ServerResponse) =>
      `${req.method} ${loggableUrl(req.url)} ${res.statusCode}`,
    // pino-http makes up an Error for a 5xx answer: its stack would only show pino-http. What went
    // wrong is on the Errors line the exception filter writes, with the same reqId.
    customErrorObject: (_req: IncomingMessage, _res: ServerResponse, _err: Error, value: Record<string, unknown>) => {
      const { err: _made, ...line } = value;
      return line;
    },
  };
  const stream = options.stream ?? (format === 'pretty' ? prettyStream() : undefined);
  // Every path, the unknown ones too. nestjs-pino's own default (`{/*splat}`) matches nothing on
  // Nest 12.5's Fastify adapter when there is no global prefix: no request would be logged.
  return { pinoHttp: stream ? [http, stream] : http, forRoutes: [{ path: '{*splat}', method: RequestMethod.ALL }] };
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
      translateTime: 'SYS:HH:MM:ss.l',
      singleLine: true,
      ignore: 'pid,hostname,context,req,res,reqId,responseTime',
      messageFormat: '{if context}[{context}] {end}{msg}{if responseTime} ({responseTime} ms){end}',
    });
  } catch {
    return undefined;
  }
}

/**
 * nestjs-pino's logger that writes a StartFailure as the one line it is meant to be. Nest's
 * ExceptionHandler logs whatever ends the module initialisation as an Error, stack and all;
 * main.ts logs the listen errors here too.
 */
export class ServiceLogger extends Logger {
  static create(params: Params): ServiceLogger {
    return new ServiceLogger(new PinoLogger(params), params);
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
