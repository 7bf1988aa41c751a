import { HttpException } from '@nestjs/common';

import { AppException } from './app.exception';
import { Envelope } from './envelope';
import { ErrorCode, HTTP_STATUS, Locale, messageOf } from './error-code';
import { text } from './texts';

const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'PROTOCOL_CONNECTION_LOST',
  'ER_CON_COUNT_ERROR',
  'SQLITE_BUSY',
  'SQLITE_CANTOPEN',
  // A statement that hit the deadline: a lock wait (1205), MariaDB's
  // max_statement_time (1969, which mysql2 has no name for) or MySQL's max_execution_time (3024).
  'ER_LOCK_WAIT_TIMEOUT',
  'ER_STATEMENT_TIMEOUT',
  'ER_QUERY_TIMEOUT',
  // A deadlock victim: a transient conflict the client may retry, not a bug (user creation retries
  // it itself a few times; after that, parallel creates of one value answer 503, never 500).
  'ER_LOCK_DEADLOCK',
]);
const UNAVAILABLE_ERRNOS = new Set([1205, 1213, 1969, 3024]);

/** Database or Redis out of reach: the client may retry, so 503 rather than 500. */
type ErrorChain = {
  code?: unknown;
  errno?: unknown;
  sqlState?: unknown;
  name?: unknown;
  cause?: ErrorChain;
  driverError?: ErrorChain;
  constructor?: { name?: unknown };
};

export function isUnavailable(err: unknown): boolean {
  for (let e = err as ErrorChain | undefined, depth = 0; e && depth < 5; e = e.cause ?? e.driverError, depth++) {
    if (typeof e.code === 'string' && UNAVAILABLE_CODES.has(e.code)) return true;
    if (typeof e.errno === 'number' && UNAVAILABLE_ERRNOS.has(e.errno) && typeof e.sqlState === 'string') return true;
    // node-redis's error classes leave `name` as 'Error': their class name tells them apart.
    for (const name of [String(e.name ?? ''), String(e.constructor?.name ?? '')]) {
      if (
        name === 'ClientClosedError' ||
        name === 'ConnectionTimeoutError' ||
        name === 'SocketClosedUnexpectedlyError' ||
        name === 'StoreUnavailableError' ||
        name === 'ClientOfflineError'
      )
        return true;
    }
  }
  return false;
}

/** Maps anything thrown while serving a request to the API's envelope. */
export function toEnvelope(err: unknown, locale: Locale): { status: number; body: Envelope } {
  let code: ErrorCode;
  let message: string | undefined;
  let data: Envelope['data'] = null;
  if (err instanceof AppException) {
    if (err.fields?.length)
      data = {
        errors: err.fields.map((f) => ({
          ...(f.row === undefined ? {} : { row: f.row }),
          field: f.field,
          message: f[locale],
        })),
      };
    code = err.code;
    message = err.detail ? err.detail[locale] : messageOf(code, locale, err.params);
  } else {
    const status =
      err instanceof HttpException ? err.getStatus() : (err as { statusCode?: unknown } | null | undefined)?.statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      code =
        status === 404 ? ErrorCode.NOT_FOUND : status === 429 ? ErrorCode.RATE_LIMITED : ErrorCode.VALIDATION_FAILED;
      if (code === ErrorCode.VALIDATION_FAILED) message = describeClientError(err, status, locale);
    } else if (isUnavailable(err)) {
      code = ErrorCode.SERVICE_UNAVAILABLE;
    } else {
      code = ErrorCode.INTERNAL;
    }
  }
  message ??= messageOf(code, locale);
  // Every VALIDATION_FAILED names its fields; refusals of the body as a whole (not JSON,
  // too large, wrong media type) name the body.
  if (code === ErrorCode.VALIDATION_FAILED && data === null) data = { errors: [{ field: 'body', message }] };
  return { status: HTTP_STATUS[code], body: { success: false, code, message, data } };
}

function describeClientError(err: unknown, status: number, locale: Locale): string {
  const e = err as { code?: unknown; message?: unknown } | null | undefined;
  if (status === 413) return text('validation.bodyTooLarge', locale);
  if (status === 415) return text('validation.unsupportedMediaType', locale);
  if (e?.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err instanceof SyntaxError || /JSON/i.test(String(e?.message)))
    return text('validation.invalidJson', locale);
  return messageOf(ErrorCode.VALIDATION_FAILED, locale);
}
