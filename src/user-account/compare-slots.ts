import { randomUUID } from 'node:crypto';

import { Inject, Injectable, Logger, Optional } from '@nestjs/common';

import { Keys } from '../store/keys';
import { KvStore } from '../store/kv.store';

/** A password compare in flight, counted against the account's free slots until released. */
export interface CompareSlot {
  /** Frees the slot; safe to call more than once, never fails (a slot the store did not free lapses with its lease). */
  release(): Promise<void>;
}

export const COMPARE_SLOT_LEASE_MS = Symbol('COMPARE_SLOT_LEASE_MS');

/**
 * The password compares of one account in flight, on every instance that shares the store
 *: the login mutex is held only while a slot is counted and taken, never through
 * BCrypt, and lock-policy's freeSlots says how many may run. Taking and counting happen under the
 * account's login mutex (LockoutService.reserveCompare); releasing needs no mutex except where a
 * failure is recorded in the same breath.
 *
 * Each slot is a key of its own with a lease, renewed while its compare runs (as KeyedMutex renews
 * its lease), so a crashed instance frees its slots within one lease; a set names the slots of
 * the account, since the store cannot list keys. The set lives twice a lease from its last write,
 * so it outlives every slot it names.
 */
@Injectable()
export class CompareSlots {
  private readonly logger = new Logger('CompareSlots');
  /** Far longer than a compare takes; only a crashed holder ever lets it run out. */
  private readonly leaseMs: number;

  constructor(
    private readonly store: KvStore,
    @Optional() @Inject(COMPARE_SLOT_LEASE_MS) leaseMs?: number,
  ) {
    this.leaseMs = leaseMs ?? 5_000;
  }

  /** Slots of the account whose lease is alive; the names of lapsed ones are dropped on the way. */
  async held(userId: string): Promise<number> {
    const ids = await this.store.sMembers(Keys.loginSlots(userId));
    if (!ids.length) return 0;
    const leases = await this.store.mget(ids.map((id) => Keys.loginSlot(userId, id)));
    const lapsed = ids.filter((_, i) => leases[i] === null);
    if (lapsed.length) await this.store.sRem(Keys.loginSlots(userId), ...lapsed);
    return ids.length - lapsed.length;
  }

  /** Takes one more slot. The caller holds the account's login mutex and has checked freeSlots. */
  async take(userId: string): Promise<CompareSlot> {
    const id = randomUUID();
    const key = Keys.loginSlot(userId, id);
    // Sent together (one round trip to Redis, which runs them in this order): the lease first,
    // so that no name in the set is read as a lapsed slot before its lease exists.
    await Promise.all([
      this.store.set(key, id, this.leaseMs),
      this.store.sAdd(Keys.loginSlots(userId), id),
      this.store.expire(Keys.loginSlots(userId), 2 * this.leaseMs),
    ]);
    const stopRenewing = this.renewWhileHeld(userId, key, id);
    let released: Promise<void> | undefined;
    return {
      release: () => {
        released ??= (async () => {
          stopRenewing();
          try {
            await Promise.all([this.store.delIfEquals(key, id), this.store.sRem(Keys.loginSlots(userId), id)]);
          } catch (err) {
            this.logger.warn(
              `compare slot of user ${userId} not released, it lapses with its lease: ${(err as Error)?.name}`,
            );
          }
        })();
        return released;
      },
    };
  }

  private renewWhileHeld(userId: string, key: string, id: string): () => void {
    let stopped = false;
    let timer: NodeJS.Timeout | undefined;
    const schedule = () => {
      timer = setTimeout(
        async () => {
          try {
            if (!(await this.store.expireIfEquals(key, id, this.leaseMs))) {
              if (!stopped) this.logger.warn(`compare slot of user ${userId} was lost while its compare still ran`);
              return;
            }
            await this.store.expire(Keys.loginSlots(userId), 2 * this.leaseMs);
          } catch (err) {
            this.logger.warn(`compare slot of user ${userId} not renewed: ${(err as Error)?.name}`);
          }
          if (!stopped) schedule();
        },
        Math.max(1, Math.floor(this.leaseMs / 3)),
      );
      timer.unref();
    };
    schedule();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }
}
