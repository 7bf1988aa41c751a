import { FakeClock } from '../../../test/support/fake-clock';
import { KeyedMutex } from '../../store/keyed-mutex';
import { MemoryKvStore } from '../../store/memory-kv.store';
import { STREAM_SLOT_TTL_MS, StreamSlot, StreamSlots } from './stream-slots';

/** The caps of open message streams, counted in the store that every instance shares. */
describe('StreamSlots', () => {
  let clock: FakeClock;
  let store: MemoryKvStore;
  let slots: StreamSlots;
  /** Another instance on the same store. */
  let elsewhere: StreamSlots;

  beforeEach(() => {
    clock = new FakeClock(new Date('2025-01-01T00:00:00Z'));
    store = new MemoryKvStore(clock);
    slots = new StreamSlots(store, new KeyedMutex(store));
    elsewhere = new StreamSlots(store, new KeyedMutex(store));
  });
  afterEach(() => store.close());

  const claimMany = async (on: StreamSlots, userId: string, tokenHash: string, count: number) => {
    const claimed: StreamSlot[] = [];
    for (let i = 0; i < count; i++) {
      const { slot, evicted } = await on.claim(userId, tokenHash);
      expect(evicted).toEqual([]);
      claimed.push(slot);
    }
    return claimed;
  };

  it("a sixth of one session pushes out that session's oldest, also when another instance holds it", async () => {
    const [oldest, ...rest] = await claimMany(elsewhere, 'u1', 's1', 5);
    const { evicted } = await slots.claim('u1', 's1');
    expect(evicted).toEqual([oldest.id]);
    expect(await elsewhere.evictedAmong([oldest, ...rest].map((s) => s.id))).toEqual(new Set([oldest.id]));
    // Its heartbeat cannot bring it back.
    expect(await elsewhere.refresh(oldest)).toBe(false);
  });

  it("a 21st of one user pushes out the user's oldest, of whichever session", async () => {
    const claimed: StreamSlot[] = [];
    for (const session of ['s1', 's2', 's3', 's4'])
      claimed.push(...(await claimMany(session === 's2' ? elsewhere : slots, 'u1', session, 5)));
    expect((await slots.claim('u1', 's5')).evicted).toEqual([claimed[0].id]);
    expect((await elsewhere.claim('u1', 's5')).evicted).toEqual([claimed[1].id]);
    // Other users count on their own.
    await claimMany(slots, 'u2', 't1', 5);
  });

  it('a released slot is free at once', async () => {
    const claimed = await claimMany(slots, 'u1', 's1', 5);
    await elsewhere.release(claimed[2]);
    expect((await slots.claim('u1', 's1')).evicted).toEqual([]);
    expect((await slots.claim('u1', 's1')).evicted).toEqual([claimed[0].id]);
  });

  it('the slots of an instance that stopped beating expire; beating ones stay', async () => {
    const dead = await claimMany(elsewhere, 'u1', 's1', 3);
    const beating = await claimMany(slots, 'u1', 's1', 2);
    clock.advance(STREAM_SLOT_TTL_MS - 1000);
    for (const slot of beating) expect(await slots.refresh(slot)).toBe(true);
    clock.advance(1000);
    // The dead instance's three are gone: three more fit without pushing out a living one.
    await claimMany(slots, 'u1', 's1', 3);
    expect((await slots.claim('u1', 's1')).evicted).toEqual([beating[0].id]);
    expect(await slots.evictedAmong(dead.map((s) => s.id))).toEqual(new Set());
  });

  it('a slot the store lost while its stream lived is put back by the heartbeat', async () => {
    const [slot] = await claimMany(slots, 'u1', 's1', 1);
    clock.advance(STREAM_SLOT_TTL_MS);
    expect(await slots.refresh(slot)).toBe(true);
    await claimMany(slots, 'u1', 's1', 4);
    expect((await slots.claim('u1', 's1')).evicted).toEqual([slot.id]);
  });
});
