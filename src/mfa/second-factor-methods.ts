import { ExtensionPoint } from '../common/extension-point';

/** How a method's answer at the second step came out: right, wrong (a guess, counted), or stale (not a guess). */
export type MethodOutcome = 'right' | 'wrong' | 'stale';

/**
 * A second factor besides TOTP that another module adds (passkeys, src/passkey). Enrolling one
 * counts as enrolled for mfaMode 2 (mode 1 asks the users who enabled TOTP); its answer may finish
 * /sys/login/mfa, where the request carries it in the body field named `name`; /sys/user/mfa/reset
 * removes it with TOTP.
 */
export interface SecondFactorMethod {
  /** The body field of /sys/login/mfa that carries this method's answer, and the name of the proof. */
  readonly name: string;
  enrolled(userId: string): Promise<boolean>;
  /** Checks the answer for the login held under `mfaToken`; called inside the account's login mutex. */
  prove(userId: string, mfaToken: string, answer: unknown): Promise<MethodOutcome>;
  /** The administrator's reset, inside the account's login mutex. */
  removeAll(userId: string): Promise<void>;
}

export const SECOND_FACTOR_METHODS = new ExtensionPoint<SecondFactorMethod>('SECOND_FACTOR_METHODS');
