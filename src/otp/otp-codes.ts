import { randomInt, timingSafeEqual } from 'node:crypto';

import { Injectable, OnModuleInit } from '@nestjs/common';

import { Clock } from '../common/clock';
import { MfaCrypto } from '../mfa/mfa-crypto';
import { Keys } from '../store/keys';
import { KvStore } from '../store/kv.store';
import { json, OneTimeStore } from '../store/one-time-store';
import { OTP_DIGITS, OTP_MAX_TRIES, OTP_TTL_MS, OtpChannel, OtpPurpose } from './otp.types';

/** OTP_CODE:{purpose}:{userId}: the code only as a keyed hash, where it went and how often it was missed. */
interface StoredCode {
  hash: string;
  channel: OtpChannel;
  tries: number;
  /** What the code confirms, sealed by the caller (a new mobile or e-mail waiting for its code). */
  payload?: string;
}

/** A right code, and the channel it was sent through (the login type says which). */
export interface RightCode {
  right: true;
  channel: OtpChannel;
  /** The payload issued with the code, if any. */
  payload?: string;
}

/** A wrong code (or none live: an attempt at nothing is a miss all the same). */
export interface WrongCode {
  right: false;
  /** The channel of the live code missed; null when there was none. */
  channel: OtpChannel | null;
}

export type CodeVerdict = RightCode | WrongCode;

/**
 * The one live code per user and purpose: a new send replaces the old one. Kept as an HMAC under a
 * key derived from the service's secret key (a 6-digit code's plain SHA-256 is undone in a moment),
 * checked in constant time, dead after OTP_MAX_TRIES misses or one use. Every check is a
 * compare-and-set (OneTimeStore.attempt), so parallel checks on any instance count every miss once
 * and let exactly one right code through.
 */
@Injectable()
export class OtpCodes implements OnModuleInit {
  private readonly codes: OneTimeStore<StoredCode>;
  private key: Buffer;

  constructor(
    store: KvStore,
    clock: Clock,
    private readonly crypto: MfaCrypto,
  ) {
    this.codes = new OneTimeStore(store, clock, {
      key: (id) => id,
      ttlMs: OTP_TTL_MS,
      hashed: false,
      format: json<StoredCode>(),
    });
  }

  onModuleInit() {
    this.key = this.crypto.derivedKey('otp_code');
  }

  /** A new code for the user and purpose (the one before is void), with what it confirms; answers the code, to be sent. */
  async issue(purpose: OtpPurpose, userId: string, channel: OtpChannel, payload?: string): Promise<string> {
    const code = String(randomInt(10 ** OTP_DIGITS)).padStart(OTP_DIGITS, '0');
    await this.codes.issue(
      { hash: this.hash(purpose, userId, code), channel, tries: 0, ...(payload !== undefined && { payload }) },
      Keys.otpCode(purpose, userId),
    );
    return code;
  }

  /**
   * Checks `code`: a right one ends the code when `consume`, else leaves it live for consume() once
   * what it authorises is accepted (a refused new password keeps the code usable). A wrong one
   * counts a try; the last try ends the code.
   */
  async check(purpose: OtpPurpose, userId: string, code: string, consume = true): Promise<CodeVerdict> {
    const expected = this.hash(purpose, userId, code);
    const verdict = await this.codes.attempt<CodeVerdict>(Keys.otpCode(purpose, userId), (stored) => {
      if (sameHash(stored.hash, expected)) {
        return {
          keep: consume ? null : stored,
          verdict: { right: true, channel: stored.channel, payload: stored.payload },
        };
      }
      const tries = stored.tries + 1;
      return {
        keep: tries >= OTP_MAX_TRIES ? null : { ...stored, tries },
        verdict: { right: false, channel: stored.channel },
      };
    });
    return verdict ?? { right: false, channel: null };
  }

  /** Ends a code that check() found right; false when a parallel use took it first. */
  async consume(purpose: OtpPurpose, userId: string, code: string): Promise<boolean> {
    const expected = this.hash(purpose, userId, code);
    const taken = await this.codes.attempt(Keys.otpCode(purpose, userId), (stored) =>
      sameHash(stored.hash, expected) ? { keep: null, verdict: true } : { keep: stored, verdict: false },
    );
    return taken === true;
  }

  /** Ends the user's code of that purpose, if any. */
  revoke(purpose: OtpPurpose, userId: string): Promise<void> {
    return this.codes.revoke(Keys.otpCode(purpose, userId));
  }

  private hash(purpose: OtpPurpose, userId: string, code: string): string {
    // The suite's MAC: a code pending across a switch of CRYPTO_SUITE no longer matches (it lives minutes).
    return this.crypto.mac(this.key, `${purpose}:${userId}:${code}`);
  }
}

function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}
