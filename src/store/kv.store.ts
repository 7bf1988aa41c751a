/**
 * Port for the short-lived shared state (sessions, permission
 * caches, captchas, QR codes, per-user token sets) and for cross-instance
 * messages. One interface, two implementations: process memory (embedded
 * default, one instance) and Redis (several instances).
 * Keys are given without REDIS_KEY_PREFIX; the Redis implementation adds it.
 */
export abstract class KvStore {
  abstract get(key: string): Promise<string | null>;
  abstract mget(keys: string[]): Promise<(string | null)[]>;
  /** ttlMs undefined: no expiry. */
  abstract set(key: string, value: string, ttlMs?: number): Promise<void>;
  /** Sets only when absent; true when this call set it (used for locks). */
  abstract setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean>;
  /** Overwrites the value but keeps the key's remaining lifetime; false when the key is gone. */
  abstract replaceKeepTtl(key: string, value: string): Promise<boolean>;
  /**
   * Compare-and-set: overwrites the value, keeping the lifetime, only while the key still holds
   * `expected`; false otherwise. For read-modify-write of a value others may change meanwhile.
   */
  abstract replaceIfEquals(key: string, expected: string, value: string): Promise<boolean>;
  /** Atomic read-and-delete: of any number of concurrent calls exactly one gets the value. */
  abstract getDel(key: string): Promise<string | null>;
  /** Deletes the key only while it still holds value (releasing a lock one owns). */
  abstract delIfEquals(key: string, value: string): Promise<boolean>;
  abstract del(...keys: string[]): Promise<void>;
  abstract expire(key: string, ttlMs: number): Promise<void>;
  /**
   * Compare-and-expire: gives the key a new lifetime of ttlMs only while it still holds `value`;
   * false otherwise (gone, or taken by someone else). Renews a lock's lease without ever
   * extending a lease another owner took meanwhile.
   */
  abstract expireIfEquals(key: string, value: string, ttlMs: number): Promise<boolean>;
  /**
   * Atomic counter in a fixed window: adds 1 and, when the key is new (or has no lifetime),
   * gives it ttlMs. Returns the count and the window's remaining lifetime in ms. Every instance
   * sharing the store counts into the same window (per-IP throttling).
   */
  abstract incrWithTtl(key: string, ttlMs: number): Promise<{ count: number; ttlMs: number }>;
  /** Remaining lifetime in ms; -1 no expiry, -2 no key. */
  abstract ttl(key: string): Promise<number>;
  abstract sAdd(key: string, member: string): Promise<void>;
  abstract sRem(key: string, ...members: string[]): Promise<void>;
  abstract sMembers(key: string): Promise<string[]>;
  abstract publish(channel: string, message: string): Promise<void>;
  abstract subscribe(channel: string, handler: (message: string) => void): Promise<void>;
  abstract ping(): Promise<boolean>;
  abstract close(): Promise<void>;
}
