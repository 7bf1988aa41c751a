import { timingSafeEqual } from 'node:crypto';

import { Secret, TOTP } from 'otpauth';

/**
 * RFC 6238 with SHA-1, 6 digits, 30-second steps, one step of drift either way, and
 * no code accepted twice. Pure: the time and the last used step are given, the caller stores the
 * step it gets back with a conditional write (MfaRepository.claimStep).
 */
export const TOTP_PERIOD_S = 30;
export const TOTP_DIGITS = 6;
export const TOTP_DRIFT_STEPS = 1;

/** The issuer only names the account in an app; it takes no part in the codes. */
function totpOf(secretBase32: string, label = 'user', issuer = ''): TOTP {
  return new TOTP({
    issuer,
    label,
    algorithm: 'SHA1',
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_S,
    secret: Secret.fromBase32(secretBase32),
  });
}

/** A new secret: 160 random bits (RFC 4226's recommended length), base32 without padding. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

/** The provisioning URI authenticator apps read from the QR code; `issuer` is MFA_ISSUER. */
export function otpauthUrl(secretBase32: string, account: string, issuer: string): string {
  return totpOf(secretBase32, account, issuer).toString();
}

export function stepAt(nowMs: number): number {
  return Math.floor(nowMs / 1000 / TOTP_PERIOD_S);
}

/** The code of one step (tests compute codes with it). */
export function totpCode(secretBase32: string, step: number): string {
  return totpOf(secretBase32).generate({ timestamp: step * TOTP_PERIOD_S * 1000 });
}

/**
 * The step `code` is valid for — the current one or one either side — if that step is later than
 * `lastUsedStep`; null otherwise (wrong, too old, or a replay).
 */
export function acceptedStep(
  secretBase32: string,
  code: string,
  nowMs: number,
  lastUsedStep: number | null,
): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const now = stepAt(nowMs);
  let found: number | null = null;
  for (let step = now - TOTP_DRIFT_STEPS; step <= now + TOTP_DRIFT_STEPS; step += 1) {
    if (lastUsedStep !== null && step <= lastUsedStep) continue;
    if (timingSafeEqual(Buffer.from(totpCode(secretBase32, step)), Buffer.from(code))) found = step;
  }
  return found;
}

/**
 * "A replayed right code is not a guess": `code` is the code of a step inside the
 * window acceptedStep looks at (the current step, one either side) that is not later than
 * `lastUsedStep` — the code just accepted sent again (a double submit, a second tab), or one the
 * accepted code overtook. It comes from the user's own authenticator and can no longer be accepted.
 */
export function isReplay(secretBase32: string, code: string, nowMs: number, lastUsedStep: number | null): boolean {
  if (lastUsedStep === null || !/^\d{6}$/.test(code)) return false;
  const now = stepAt(nowMs);
  let found = false;
  for (let step = now - TOTP_DRIFT_STEPS; step <= Math.min(now + TOTP_DRIFT_STEPS, lastUsedStep); step += 1) {
    if (timingSafeEqual(Buffer.from(totpCode(secretBase32, step)), Buffer.from(code))) found = true;
  }
  return found;
}
