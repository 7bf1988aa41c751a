import { createHash, randomBytes } from 'node:crypto';

import { Clock } from '../common/clock';
import { KvStore } from './kv.store';

/** How a payload is written under its key, and when it stops counting. */
export interface OneTimeFormat<T> {
  encode(payload: T, expireAt: number): string;
  /** The payload, and its end by the injected clock when the stored value carries one. */
  decode(raw: string): { payload: T; expireAt?: number };
}

/**
 * The payload as the stored value itself, for keys whose value operators and tests read as it is
 * (a captcha's text, the user id of a QR code). Such a value carries no end of its own: the store's
 * lifetime is its only expiry.
 */
export const TEXT: OneTimeFormat<string> = {
  encode: (payload) => payload,
  decode: (raw) => ({ payload: raw }),
};

/**
 * The payload as a JSON object with its end (`expireAt`, epoch ms by the injected clock) beside its
 * fields, so that a credential expires when the service's clock says so on every store, not only
 * when the store's own timer fires.
 */
export function json<T extends object>(): OneTimeFormat<T> {
  return {
    encode: (payload, expireAt) => JSON.stringify({ ...payload, expireAt }),
    decode: (raw) => {
      const { expireAt, ...payload } = JSON.parse(raw) as T & { expireAt: number };
      return { payload: payload as T, expireAt };
    },
  };
}

/** One kind of one-time credential: where it is kept, for how long, and how it looks. */
export interface OneTimeKind<T> {
  /** The store key of a credential: given the credential's SHA-256 (hex) when `hashed`, else the credential. */
  key: (id: string) => string;
  ttlMs: number;
  /**
   * Keep only the credential's SHA-256: a bearer secret then cannot be read back out of the store.
   * Left off where the key is a public handle (a captcha's id) or where the key's name is fixed.
   */
  hashed: boolean;
  format: OneTimeFormat<T>;
  /** A fresh credential; 256 random bits unless the kind needs another shape. */
  generate?: () => string;
  /** A credential of any other shape is refused without a store read. */
  shape?: RegExp;
}

/** Compare-and-set rounds of one attempt before it gives up (each lost round means another attempt was judged). */
const ATTEMPT_ROUNDS = 20;

const randomCredential = () => randomBytes(32).toString('base64url');
const sha256hex = (value: string) => createHash('sha256').update(value).digest('hex');

/**
 * Credentials that are good once and for a while: issued with a payload, consumed by exactly one
 * caller (an atomic read-and-delete, so of parallel consumers — on one instance or several sharing
 * Redis — one wins), and worth nothing after their lifetime. Captchas, QR codes, second-factor
 * logins waiting for their code and message-stream tickets all go through it.
 */
export class OneTimeStore<T> {
  constructor(
    private readonly store: KvStore,
    private readonly clock: Clock,
    private readonly kind: OneTimeKind<T>,
  ) {}

  /** Stores `payload` under a new credential (or the given one) and returns the credential. */
  async issue(payload: T, credential: string = (this.kind.generate ?? randomCredential)()): Promise<string> {
    const expireAt = this.clock.nowMs() + this.kind.ttlMs;
    await this.store.set(this.keyOf(credential), this.kind.format.encode(payload, expireAt), this.kind.ttlMs);
    return credential;
  }

  /** The payload of a live credential, and the credential is gone: of parallel callers exactly one gets it. */
  async consume(credential: string): Promise<T | null> {
    if (!this.fits(credential)) return null;
    return this.live(await this.store.getDel(this.keyOf(credential)));
  }

  /** The payload of a live credential, which stays live (a credential that survives failed attempts). */
  async peek(credential: string): Promise<T | null> {
    if (!this.fits(credential)) return null;
    return this.live(await this.store.get(this.keyOf(credential)));
  }

  /**
   * One attempt at a credential that keeps count of its failures (a one-time code and its wrong
   * tries): `judge` sees the live payload and answers what to keep (null ends the credential) and
   * its verdict. The write is a compare-and-set on the value judged, so parallel attempts, on one
   * instance or several, are each judged against what the one before left. Null when no live
   * credential is there (or it kept changing under every try).
   */
  async attempt<R>(credential: string, judge: (payload: T) => { keep: T | null; verdict: R }): Promise<R | null> {
    if (!this.fits(credential)) return null;
    const key = this.keyOf(credential);
    for (let round = 0; round < ATTEMPT_ROUNDS; round++) {
      const raw = await this.store.get(key);
      if (raw === null) return null;
      const { payload, expireAt } = this.kind.format.decode(raw);
      if (expireAt !== undefined && expireAt <= this.clock.nowMs()) return null;
      const { keep, verdict } = judge(payload);
      const written =
        keep === null
          ? await this.store.delIfEquals(key, raw)
          : keep === payload || (await this.store.replaceIfEquals(key, raw, this.kind.format.encode(keep, expireAt!)));
      if (written) return verdict;
    }
    return null;
  }

  /** Ends the credential without reading it. */
  async revoke(credential: string): Promise<void> {
    if (this.fits(credential)) await this.store.del(this.keyOf(credential));
  }

  private fits(credential: string): boolean {
    return typeof credential === 'string' && (!this.kind.shape || this.kind.shape.test(credential));
  }

  private keyOf(credential: string): string {
    return this.kind.key(this.kind.hashed ? sha256hex(credential) : credential);
  }

  private live(raw: string | null): T | null {
    if (raw === null) return null;
    const { payload, expireAt } = this.kind.format.decode(raw);
    return expireAt === undefined || expireAt > this.clock.nowMs() ? payload : null;
  }
}
