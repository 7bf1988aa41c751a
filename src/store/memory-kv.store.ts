import { EventEmitter } from 'node:events';
import { setImmediate as checkPhase } from 'node:timers/promises';

import { Clock } from '../common/clock';
import { KvStore } from './kv.store';

interface Entry {
  value: string | Set<string>;
  expireAt?: number;
}

/**
 * Process-memory store for the embedded default. Expiry follows the injected
 * clock, so a test that moves time sees captchas and codes expire. JavaScript
 * runs one callback at a time, so each method is atomic within the process.
 */
export class MemoryKvStore extends KvStore {
  private readonly entries = new Map<string, Entry>();
  private readonly bus = new EventEmitter();
  private sweepTimer?: NodeJS.Timeout;

  constructor(private readonly clock: Clock) {
    super();
    this.bus.setMaxListeners(0);
    // Expired entries are also dropped on read; the sweep bounds memory for keys never read again.
    this.sweepTimer = setInterval(() => this.sweep(), 60_000);
    this.sweepTimer.unref();
  }

  private live(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (entry && entry.expireAt !== undefined && entry.expireAt <= this.clock.nowMs()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  private sweep(): void {
    for (const key of [...this.entries.keys()]) this.live(key);
  }

  private str(key: string): string | null {
    const entry = this.live(key);
    return entry && typeof entry.value === 'string' ? entry.value : null;
  }

  async get(key: string) {
    return this.str(key);
  }

  /**
   * The read every authenticated request makes (its session) answers on the loop's check phase, as
   * a network store's reply comes back on a later turn: the requests read in one turn then write
   * their answers together instead of one by one as each is read, which wakes the client's side
   * once a batch rather than once an answer (docs/benchmarks.md, the embedded default's answers).
   */
  async mget(keys: string[]) {
    await checkPhase();
    return keys.map((k) => this.str(k));
  }

  async set(key: string, value: string, ttlMs?: number) {
    this.entries.set(key, { value, expireAt: ttlMs === undefined ? undefined : this.clock.nowMs() + ttlMs });
  }

  async setIfAbsent(key: string, value: string, ttlMs: number) {
    if (this.live(key)) return false;
    await this.set(key, value, ttlMs);
    return true;
  }

  async replaceKeepTtl(key: string, value: string) {
    const entry = this.live(key);
    if (!entry) return false;
    entry.value = value;
    return true;
  }

  async replaceIfEquals(key: string, expected: string, value: string) {
    const entry = this.live(key);
    if (!entry || entry.value !== expected) return false;
    entry.value = value;
    return true;
  }

  async getDel(key: string) {
    const value = this.str(key);
    this.entries.delete(key);
    return value;
  }

  async delIfEquals(key: string, value: string) {
    if (this.str(key) !== value) return false;
    this.entries.delete(key);
    return true;
  }

  async del(...keys: string[]) {
    for (const key of keys) this.entries.delete(key);
  }

  async expire(key: string, ttlMs: number) {
    const entry = this.live(key);
    if (entry) entry.expireAt = this.clock.nowMs() + ttlMs;
  }

  async expireIfEquals(key: string, value: string, ttlMs: number) {
    const entry = this.live(key);
    if (!entry || entry.value !== value) return false;
    entry.expireAt = this.clock.nowMs() + ttlMs;
    return true;
  }

  async incrWithTtl(key: string, ttlMs: number) {
    let entry = this.live(key);
    const current = entry && typeof entry.value === 'string' ? Number(entry.value) || 0 : 0;
    if (!entry || typeof entry.value !== 'string') {
      entry = { value: '0' };
      this.entries.set(key, entry);
    }
    entry.value = String(current + 1);
    if (entry.expireAt === undefined) entry.expireAt = this.clock.nowMs() + ttlMs;
    return { count: current + 1, ttlMs: entry.expireAt - this.clock.nowMs() };
  }

  async ttl(key: string) {
    const entry = this.live(key);
    if (!entry) return -2;
    return entry.expireAt === undefined ? -1 : entry.expireAt - this.clock.nowMs();
  }

  async sAdd(key: string, member: string) {
    let entry = this.live(key);
    if (!entry || typeof entry.value === 'string') {
      entry = { value: new Set<string>() };
      this.entries.set(key, entry);
    }
    (entry.value as Set<string>).add(member);
  }

  async sRem(key: string, ...members: string[]) {
    const entry = this.live(key);
    if (!entry || typeof entry.value === 'string') return;
    for (const m of members) entry.value.delete(m);
    if (entry.value.size === 0) this.entries.delete(key);
  }

  async sMembers(key: string) {
    const entry = this.live(key);
    return entry && typeof entry.value !== 'string' ? [...entry.value] : [];
  }

  async publish(channel: string, message: string) {
    // Delivered asynchronously, as Redis would, so publishers never re-enter themselves.
    setImmediate(() => this.bus.emit(channel, message));
  }

  async subscribe(channel: string, handler: (message: string) => void) {
    this.bus.on(channel, handler);
  }

  async ping() {
    return true;
  }

  async close() {
    clearInterval(this.sweepTimer);
    this.bus.removeAllListeners();
    this.entries.clear();
  }
}
