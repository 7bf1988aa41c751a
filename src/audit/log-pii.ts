import { ExtensionPoint } from '../common/extension-point';

/**
 * What the log tables need of the personal-data cipher: a row keeps a mobile or e-mail masked where
 * everyone reads it, and whole only sealed beside it, opened for a holder of sys:user:pii
 * (docs/security.md#personal-data).
 */
export interface LogPiiCipher {
  seal(plain: string): string;
  /** The plain value; throws when no known key opens it (a key dropped since the row was written). */
  open(stored: string): string;
}

/** Filled by the personal-data module (src/pii); without it log rows keep the masked values only. */
export const LOG_PII_CIPHER = new ExtensionPoint<LogPiiCipher>('LOG_PII_CIPHER');

/** `sealed` opened, or `fallback` when it is absent or no key opens it any more. */
export function openedOr(
  cipher: LogPiiCipher | undefined,
  sealed: string | null | undefined,
  fallback: string,
): string {
  if (!cipher || !sealed) return fallback;
  try {
    return cipher.open(sealed);
  } catch {
    return fallback;
  }
}
