import { randomUUID } from 'node:crypto';

import { KvStore } from './kv.store';

export interface StampedSnapshotOptions<T> {
  /** The shared store's key of the stamp; every change rewrites it. */
  stampKey: string;
  /** Reads the value whole from the database. */
  read: () => Promise<T>;
  /** Epoch ms: the owner's clock. */
  now: () => number;
  /** The value is read again after this long whatever the stamp says, should a stamp write have failed. */
  reloadMs: number;
}

/**
 * A value read whole from the database and held in process memory, kept current across instances
 * by a stamp in the shared store (memory when embedded, Redis in a cluster): every change writes a
 * new stamp, and a holder that sees the stamp moved reads the value again. The value is read under
 * the stamp read just before it, so a change committed after the read moves the stamp again.
 */
export class StampedSnapshot<T> {
  private value?: T;
  /** The stamp `value` was read under; undefined: never read, or to be read again. */
  private stamp: string | null | undefined;
  private readAt = 0;
  private comparedAt = 0;
  /** Counts invalidations, so that a read begun before one does not count as current. */
  private generation = 0;
  private reading?: Promise<T>;
  private queued?: Promise<T>;

  constructor(
    private readonly store: KvStore,
    private readonly options: StampedSnapshotOptions<T>,
  ) {}

  /**
   * The value changed: this instance reads it again at its next use, the others once they compare
   * the new stamp. Invalidated before the stamp is written, so this instance sees the change even
   * when the store does not take it.
   */
  async announce(): Promise<void> {
    this.invalidate();
    await this.store.set(this.options.stampKey, randomUUID());
  }

  /** The value is read again at the next refresh, by a read that begins after this call. */
  invalidate(): void {
    this.generation += 1;
    this.stamp = undefined;
  }

  /** The value, read again when the stamp moved since, it was never read, or it is old. */
  async refresh(): Promise<T> {
    const stamp = await this.store.get(this.options.stampKey);
    if (this.current() && stamp === this.stamp) {
      this.comparedAt = this.options.now();
      return this.value as T;
    }
    return this.readAfterNow();
  }

  /** The value as held while the stamp was compared less than `compareMs` ago; else as `refresh`. */
  held(compareMs: number): Promise<T> {
    if (this.current() && this.options.now() - this.comparedAt < compareMs) return Promise.resolve(this.value as T);
    return this.refresh();
  }

  private current(): boolean {
    return this.stamp !== undefined && this.options.now() - this.readAt < this.options.reloadMs;
  }

  /**
   * A read that begins after this call (one already under way may predate what the caller has
   * seen): joins the read queued behind the running one, or starts one.
   */
  private readAfterNow(): Promise<T> {
    if (this.queued) return this.queued;
    if (!this.reading) {
      this.reading = this.read().finally(() => (this.reading = undefined));
      return this.reading;
    }
    this.queued = this.reading
      .catch(() => undefined)
      .then(() => {
        this.queued = undefined;
        return this.readAfterNow();
      });
    return this.queued;
  }

  /** The stamp first, then the value. */
  private async read(): Promise<T> {
    const generation = this.generation;
    const stamp = await this.store.get(this.options.stampKey);
    const value = await this.options.read();
    this.value = value;
    if (generation === this.generation) {
      this.stamp = stamp;
      this.readAt = this.options.now();
      this.comparedAt = this.readAt;
    }
    return value;
  }
}
