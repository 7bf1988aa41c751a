/**
 * A small map whose entries expire and whose size is bounded: when full, the entry used least
 * recently goes first (a Map keeps insertion order, and a hit moves its entry to the end). Time comes
 * from `now`, so tests move it instead of waiting.
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();

  constructor(
    private readonly maxEntries: number,
    private readonly now: () => number,
  ) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.expiresAt <= this.now()) return undefined;
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Keeps `value` until `expiresAt` (epoch ms of `now`); a time not in the future keeps nothing. */
  set(key: string, value: V, expiresAt: number): void {
    this.entries.delete(key);
    if (expiresAt <= this.now() || this.maxEntries <= 0) return;
    while (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
    this.entries.set(key, { value, expiresAt });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
