/**
 * The codes the service answers in its envelope (docs/api.md#error-codes). A code this version does
 * not know yet still arrives as a string, so `code` also takes any other string.
 */
export const ERROR_CODES = [
  'VALIDATION_FAILED',
  'CAPTCHA_INVALID',
  'BAD_CREDENTIALS',
  'ACCOUNT_LOCKED',
  'ACCOUNT_DISABLED',
  'ACCOUNT_EXPIRED',
  'OLD_PASSWORD_WRONG',
  'PASSWORD_TOO_SHORT',
  'PASSWORD_TOO_LONG',
  'PASSWORD_NEEDS_DIGIT',
  'PASSWORD_NEEDS_UPPER',
  'PASSWORD_NEEDS_LOWER',
  'PASSWORD_NEEDS_SYMBOL',
  'PASSWORD_CONTAINS_ACCOUNT',
  'PASSWORD_TOO_COMMON',
  'PASSWORD_REUSED',
  'NOT_LOGGED_IN',
  'KICKED_OUT',
  'IP_MISMATCH',
  'TEMP_TOKEN_FORBIDDEN',
  'FORBIDDEN',
  'QRCODE_INVALID',
  'MFA_CODE_INVALID',
  'MFA_TOKEN_INVALID',
  'MFA_ALREADY_ENABLED',
  'REAUTH_REQUIRED',
  'ACCESS_DENIED',
  'NOT_FOUND',
  'RATE_LIMITED',
  'SERVICE_UNAVAILABLE',
  'INTERNAL',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** One refused field of a `VALIDATION_FAILED` answer. */
export interface FieldError {
  field: string;
  message: string;
}

/**
 * A refusal: the envelope's `code` and `message` (in the client's language) and the HTTP status.
 * When no answer came (network down, timeout, not the service's envelope), `code` is
 * `SERVICE_UNAVAILABLE` and `status` is 0; the original failure is the `cause`.
 */
export class LoginPolicyError extends Error {
  override readonly name = 'LoginPolicyError';

  constructor(
    readonly code: ErrorCode | (string & {}),
    message: string,
    readonly status: number,
    /** `VALIDATION_FAILED` only: the refused fields. */
    readonly fieldErrors: FieldError[] = [],
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
