import type { LoginResult } from './auth';
import { post } from './request';

/**
 * Contract §8, the second factor (TOTP with recovery codes). Types below follow the contract until
 * schema.d.ts is regenerated with the service's MFA operations.
 */
export interface MfaSetup {
  /** base32, for typing into an authenticator app */
  secret: string;
  /** otpauth://totp/… for the QR code */
  otpauthUrl: string;
}
export interface RecoveryCodes {
  /** 10 single-use codes xxxx-xxxx, shown once */
  recoveryCodes: string[];
}

/** The second step of a password login: a TOTP code or an unused recovery code; answers the full login result. */
export const loginMfa = (mfaToken: string, code: string) => post<LoginResult>('/sys/login/mfa', { mfaToken, code });
/** A new secret, pending until enabled (MFA_ALREADY_ENABLED when TOTP is on). */
export const setupMfa = () => post<MfaSetup>('/sys/me/mfa/setup');
export const enableMfa = (code: string) => post<RecoveryCodes>('/sys/me/mfa/enable', { code });
/** FORBIDDEN while the login strategy requires a second factor for everyone (mfaMode 2). */
export const disableMfa = (code: string) => post('/sys/me/mfa/disable', { code });
/** A new set of recovery codes; the old set is void. */
export const renewRecoveryCodes = (code: string) => post<RecoveryCodes>('/sys/me/mfa/recoveryCodes', { code });

/** A typed code as the service wants it: spaces dropped (authenticator apps show "123 456"). */
export const normaliseCode = (value: string): string => value.replace(/\s+/g, '');
