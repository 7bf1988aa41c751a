import { createHash } from 'node:crypto';

/**
 * What a pending step of a login (a QR code, an mfaToken) remembers of the password it was made
 * under: enough to notice that the password changed or was reset meanwhile, not to attack it.
 */
export function credentialStamp(passwordHash: string): string {
  return createHash('sha256').update(passwordHash).digest('hex').slice(0, 32);
}
