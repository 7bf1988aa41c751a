import { ErrorCode } from './error-code';

/**
 * The one exception type services throw. The global filter turns it into the
 * contract's envelope; services never pick HTTP statuses or build envelopes.
 */
export class AppException extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly params?: Record<string, string | number>,
    /** A ready message (validation details); when absent the code's text is used. */
    readonly detail?: { zh: string; en: string },
  ) {
    super(code);
  }
}

export const validationFailed = (zh: string, en: string = zh) =>
  new AppException(ErrorCode.VALIDATION_FAILED, undefined, { zh, en });

/** FORBIDDEN with a message that says why (the code stays the contract's). */
export const forbidden = (zh: string, en: string) =>
  new AppException(ErrorCode.FORBIDDEN, undefined, { zh, en });
