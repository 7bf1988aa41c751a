import { randomUUID } from 'node:crypto';

import { Injectable } from '@nestjs/common';

import { KeyedMutex } from '../../store/keyed-mutex';
import { Keys } from '../../store/keys';
import { KvStore } from '../../store/kv.store';

/** Open /sys/message/stream per session and per user, on all instances together. */
export const STREAMS_PER_SESSION = 5;
export const STREAMS_PER_USER = 20;
/**
 * How long a slot outlives the last refresh by its stream's heartbeat (MessagePushService, every
 * 25 s): the slots of an instance that died free themselves after this, never later.
 */
export const STREAM_SLOT_TTL_MS = 80_000;

/** What STREAM_SLOT:{id} holds while its stream is open: its age among the user's and its session. */
interface SlotValue {
  seq: number;
  tokenHash: string;
}

/** STREAM_SLOT:{id} of a stream that a newer one pushed out; its instance ends it at the next check. */
const EVICTED = 'evicted';

/** One open stream's place in the count, as its instance keeps it. */
export interface StreamSlot {
  id: string;
  userId: string;
  /** The stored value, for refreshes that must not revive a slot another opener evicted. */
  value: string;
}

/**
 * The count of open streams per session and per user in the shared store (Redis across instances,
 * process memory otherwise): STREAM_SLOTS:{userId} holds the ids of the user's slots, each alive as
 * long as its STREAM_SLOT:{id}, which the stream's heartbeat refreshes. Opening a stream over a cap
 * marks the oldest slot (of the session, or of the user) evicted; the instance holding that stream
 * reads the mark at its next check and ends it (MessagePushService).
 */
@Injectable()
export class StreamSlots {
  constructor(
    private readonly store: KvStore,
    private readonly mutex: KeyedMutex,
  ) {}

  /**
   * A slot for a new stream of the session; `evicted`: the ids of the slots it pushed out. The user's
   * claims run one at a time on every instance, so that parallel opens never pass a cap together.
   */
  claim(userId: string, tokenHash: string): Promise<{ slot: StreamSlot; evicted: string[] }> {
    return this.mutex.run(Keys.streamSlotsMutex(userId), async () => {
      const setKey = Keys.streamSlots(userId);
      const ids = await this.store.sMembers(setKey);
      const values = ids.length ? await this.store.mget(ids.map((id) => Keys.streamSlot(id))) : [];
      const live: { id: string; value: SlotValue }[] = [];
      const gone: string[] = [];
      values.forEach((raw, i) => {
        const value = parse(raw);
        if (value) live.push({ id: ids[i], value });
        else gone.push(ids[i]);
      });
      live.sort((a, b) => a.value.seq - b.value.seq);
      const evicted = oldestOver(
        live.filter((s) => s.value.tokenHash === tokenHash),
        STREAMS_PER_SESSION,
      );
      evicted.push(
        ...oldestOver(
          live.filter((s) => !evicted.includes(s.id)),
          STREAMS_PER_USER,
        ),
      );
      for (const id of evicted) await this.store.set(Keys.streamSlot(id), EVICTED, STREAM_SLOT_TTL_MS);
      if (gone.length || evicted.length) await this.store.sRem(setKey, ...gone, ...evicted);
      const slot: StreamSlot = {
        id: randomUUID(),
        userId,
        value: JSON.stringify({ seq: (live.at(-1)?.value.seq ?? 0) + 1, tokenHash } satisfies SlotValue),
      };
      await this.store.set(Keys.streamSlot(slot.id), slot.value, STREAM_SLOT_TTL_MS);
      await this.store.sAdd(setKey, slot.id);
      await this.store.expire(setKey, STREAM_SLOT_TTL_MS);
      return { slot, evicted };
    });
  }

  /** The ids among `ids` whose streams a newer one pushed out. */
  async evictedAmong(ids: string[]): Promise<Set<string>> {
    if (!ids.length) return new Set();
    const values = await this.store.mget(ids.map((id) => Keys.streamSlot(id)));
    return new Set(ids.filter((_, i) => values[i] === EVICTED));
  }

  /**
   * The heartbeat of an open stream: its slot lives another STREAM_SLOT_TTL_MS. False when it was
   * evicted meanwhile. A slot the store lost (expired while the store was away) is put back.
   */
  async refresh(slot: StreamSlot): Promise<boolean> {
    if (await this.store.expireIfEquals(Keys.streamSlot(slot.id), slot.value, STREAM_SLOT_TTL_MS)) {
      await this.store.expire(Keys.streamSlots(slot.userId), STREAM_SLOT_TTL_MS);
      return true;
    }
    if (!(await this.store.setIfAbsent(Keys.streamSlot(slot.id), slot.value, STREAM_SLOT_TTL_MS))) {
      return (await this.store.get(Keys.streamSlot(slot.id))) !== EVICTED;
    }
    await this.store.sAdd(Keys.streamSlots(slot.userId), slot.id);
    await this.store.expire(Keys.streamSlots(slot.userId), STREAM_SLOT_TTL_MS);
    return true;
  }

  /** The stream has closed: its slot is free at once. */
  async release(slot: StreamSlot): Promise<void> {
    await this.store.del(Keys.streamSlot(slot.id));
    await this.store.sRem(Keys.streamSlots(slot.userId), slot.id);
  }
}

function parse(raw: string | null): SlotValue | null {
  if (!raw || raw === EVICTED) return null;
  try {
    return JSON.parse(raw) as SlotValue;
  } catch {
    return null;
  }
}

/** The ids of the oldest of `slots` (sorted oldest first) that must go for one more to fit under `cap`. */
function oldestOver(slots: { id: string }[], cap: number): string[] {
  return slots.slice(0, Math.max(0, slots.length - (cap - 1))).map((s) => s.id);
}
