import { FakeClock } from '../../test/support/fake-clock';
import { unit } from '../../test/support/unit';
import { MemoryKvStore } from '../store/memory-kv.store';
import { CompareSlot, CompareSlots } from './compare-slots';

const LEASE_MS = 3_000;

describe('CompareSlots (password compares of one account in flight, on every instance)', () => {
  let clock: FakeClock;
  let store: MemoryKvStore;
  let slots: CompareSlots;
  let taken: CompareSlot[];

  beforeEach(async () => {
    clock = new FakeClock(new Date('2025-06-01T00:00:00Z'));
    store = new MemoryKvStore(clock);
    taken = [];
    ({ service: slots } = await unit(CompareSlots, { KvStore: store, COMPARE_SLOT_LEASE_MS: LEASE_MS }));
  });

  afterEach(async () => {
    await Promise.all(taken.map((s) => s.release()));
    await store.close();
    jest.useRealTimers();
  });

  const take = async (userId = 'u1') => {
    const slot = await slots.take(userId);
    taken.push(slot);
    return slot;
  };

  it('counts each slot taken until it is released', async () => {
    expect(await slots.held('u1')).toBe(0);
    const first = await take();
    await take();
    expect(await slots.held('u1')).toBe(2);
    await first.release();
    expect(await slots.held('u1')).toBe(1);
  });

  it('frees a slot once however often it is released, and never another one', async () => {
    const first = await take();
    await take();
    await Promise.all([first.release(), first.release()]);
    await first.release();
    expect(await slots.held('u1')).toBe(1);
  });

  it("keeps each account's slots apart", async () => {
    await take('u1');
    await take('u2');
    await take('u2');
    expect([await slots.held('u1'), await slots.held('u2'), await slots.held('u3')]).toEqual([1, 2, 0]);
  });

  it('shares the slots with another instance on the same store', async () => {
    const { service: other } = await unit(CompareSlots, { KvStore: store, COMPARE_SLOT_LEASE_MS: LEASE_MS });
    const there = await other.take('u1');
    taken.push(there);
    await take();
    expect(await slots.held('u1')).toBe(2);
    await there.release();
    expect(await slots.held('u1')).toBe(1);
  });

  it('stops counting the slot of a holder that crashed once its lease runs out', async () => {
    const crashed = await take();
    clock.advance(LEASE_MS - 1);
    expect(await slots.held('u1')).toBe(1);
    clock.advance(1);
    expect(await slots.held('u1')).toBe(0);
    // Its holder coming back to release it harms nothing.
    await crashed.release();
    expect(await slots.held('u1')).toBe(0);
  });

  it('keeps the slot of a compare that runs longer than one lease, and stops renewing once released', async () => {
    jest.useFakeTimers();
    const slot = await take();
    for (let i = 0; i < 6; i++) {
      clock.advance(LEASE_MS / 3);
      await jest.advanceTimersByTimeAsync(LEASE_MS / 3);
    }
    expect(await slots.held('u1')).toBe(1);
    await slot.release();
    expect(await slots.held('u1')).toBe(0);
    // No renewal is left behind (the store's sweep was set before the fake timers).
    expect(jest.getTimerCount()).toBe(0);
  });
});
