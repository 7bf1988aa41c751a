import { FakeClock } from '../../test/support/fake-clock';
import { CompareBudget, CompareShed, FLOOD_SHEDS, FLOOD_WINDOW_MS } from './compare-budget';

/** A compare that ends when the test says so. */
function gate() {
  let open!: () => void;
  const done = new Promise<boolean>((r) => {
    open = () => r(true);
  });
  return { open, work: () => done };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('CompareBudget', () => {
  let clock: FakeClock;
  let shed: number;
  const budget = (concurrency: number, queueMs: number, compareMs = 100) =>
    new CompareBudget({ concurrency, queueMs, compareMs, now: () => clock.nowMs(), onShed: () => (shed += 1) });

  beforeEach(() => {
    clock = new FakeClock(Date.UTC(2026, 0, 1));
    shed = 0;
  });

  it('runs up to its concurrency at once and queues the rest', async () => {
    const sut = budget(2, 1_000);
    const gates = [gate(), gate(), gate()];
    const started: number[] = [];
    const runs = gates.map((g, i) =>
      sut.run(`lane${i}`, () => {
        started.push(i);
        return g.work();
      }),
    );
    await tick();
    expect(started).toEqual([0, 1]);
    gates[0].open();
    await tick();
    await tick();
    expect(started).toEqual([0, 1, 2]);
    gates[1].open();
    gates[2].open();
    await expect(Promise.all(runs)).resolves.toEqual([true, true, true]);
    expect(shed).toBe(0);
  });

  it('sheds at once, with Retry-After, a compare whose expected wait exceeds the bound', async () => {
    // One compare takes 100 ms: with one running and 10 waiting, the 11th would wait 1.1 s.
    const sut = budget(1, 1_000);
    const g = gate();
    const runs = Array.from({ length: 11 }, () => sut.run('a', g.work));
    let error: unknown;
    await sut.run('b', g.work).catch((err: unknown) => (error = err));
    expect(error).toBeInstanceOf(CompareShed);
    expect((error as CompareShed).retryAfterSeconds).toBe(2);
    expect(() => sut.assertRoom()).toThrow(CompareShed);
    expect(shed).toBe(2);
    g.open();
    await expect(Promise.all(runs)).resolves.toHaveLength(11);
    expect(() => sut.assertRoom()).not.toThrow();
  });

  it('sheds a waiter whose turn comes after the bound', async () => {
    const sut = budget(1, 1_000, 10);
    const first = gate();
    const running = sut.run('a', first.work);
    const waiting = sut.run('b', () => Promise.resolve(true));
    clock.advance(1_001);
    first.open();
    await expect(running).resolves.toBe(true);
    await expect(waiting).rejects.toBeInstanceOf(CompareShed);
    expect(shed).toBe(1);
  });

  it('learns how long a compare takes from its worker, not from how late its answer was read', async () => {
    const lagging = (reported?: number) => {
      const sut = budget(1, 1_000, 100);
      return sut
        .run(
          'a',
          async () => {
            clock.advance(900); // the compare took 100 ms; a busy event loop read its answer 800 ms later
            return { ms: 100 };
          },
          false,
          reported === undefined ? undefined : (r) => r.ms,
        )
        .then(() => sut);
    };
    // Six more arrive: one runs, the others wait as far as the budget lets them.
    const fill = (sut: CompareBudget) => {
      const g = gate();
      const runs = Array.from({ length: 6 }, () => sut.run('b', g.work).catch(() => false));
      return { runs, g };
    };
    const timed = await lagging(100);
    const a = fill(timed);
    expect(() => timed.assertRoom()).not.toThrow(); // 6 compares of 100 ms ahead
    const untimed = await lagging();
    const b = fill(untimed);
    expect(() => untimed.assertRoom()).toThrow(CompareShed); // a mean of 260 ms, the lag counted
    a.g.open();
    b.g.open();
    await Promise.all([...a.runs, ...b.runs]);
  });

  it('serves lanes in turn: one account with many waiting does not starve another', async () => {
    const sut = budget(1, 60_000, 1);
    const order: string[] = [];
    const first = gate();
    const runs = [sut.run('busy', first.work)];
    for (let i = 0; i < 5; i += 1) runs.push(sut.run('busy', async () => (order.push('busy'), true)));
    runs.push(sut.run('other', async () => (order.push('other'), true)));
    first.open();
    await Promise.all(runs);
    expect(order.indexOf('other')).toBe(1);
  });

  it('lets a known-good client past a full line of strangers, and sheds it only by its own line', async () => {
    const sut = budget(1, 1_000);
    const g = gate();
    const order: string[] = [];
    const runs = [sut.run('first', g.work)];
    for (let i = 0; i < 10; i += 1) runs.push(sut.run(`stranger${i}`, async () => (order.push('stranger'), true)));
    expect(() => sut.assertRoom()).toThrow(CompareShed);
    expect(() => sut.assertRoom(true)).not.toThrow();
    runs.push(sut.run('known', async () => (order.push('known'), true), true));
    g.open();
    await Promise.all(runs);
    expect(order[0]).toBe('known');
    expect(shed).toBe(1);
  });

  it('takes turns between the priority line and the lanes: known clients never starve a new one', async () => {
    const sut = budget(1, 60_000, 1);
    const order: string[] = [];
    const first = gate();
    const runs = [sut.run('first', first.work)];
    runs.push(sut.run('new-device', async () => (order.push('stranger'), true)));
    for (let i = 0; i < 4; i += 1) runs.push(sut.run(`known${i}`, async () => (order.push('known'), true), true));
    first.open();
    await Promise.all(runs);
    expect(order).toEqual(['known', 'stranger', 'known', 'known', 'known']);
  });

  it('runs one compare fewer during a flood of sheds, and all again once a window has passed without one', async () => {
    const sut = budget(2, 60_000, 6_000);
    const [a, b] = [gate(), gate()];
    const started: number[] = [];
    const runs = [sut.run('a', a.work), sut.run('b', b.work)];
    // Two running and 20 waiting: the next would wait 66 s, and is shed.
    for (let i = 0; i < 20; i += 1) runs.push(sut.run(`w${i}`, async () => (started.push(i), true)));
    // A shed now and then is a burst of real logins, not a flood.
    for (let i = 1; i < FLOOD_SHEDS; i += 1) expect(() => sut.assertRoom()).toThrow(CompareShed);
    expect([sut.flooding(), sut.concurrency()]).toEqual([false, 2]);
    expect(() => sut.assertRoom()).toThrow(CompareShed);
    expect([sut.flooding(), sut.concurrency()]).toEqual([true, 1]);

    a.open();
    await tick();
    await tick();
    expect(started).toEqual([]); // b still runs: one at a time during the flood
    clock.advance(FLOOD_WINDOW_MS);
    expect([sut.flooding(), sut.concurrency()]).toEqual([false, 2]);
    b.open();
    await Promise.all(runs);
    expect(started).toHaveLength(20);
  });

  it('counts sheds per window: as many spread over two windows are no flood', () => {
    const sut = budget(2, 1_000, 6_000);
    const g = gate();
    void sut.run('a', g.work);
    void sut.run('b', g.work);
    for (let i = 1; i < FLOOD_SHEDS - 1; i += 1) expect(() => sut.assertRoom()).toThrow(CompareShed);
    clock.advance(FLOOD_WINDOW_MS - 1);
    expect(() => sut.assertRoom()).toThrow(CompareShed); // the window's last millisecond
    clock.advance(1);
    expect(() => sut.assertRoom()).toThrow(CompareShed); // the next window's first
    expect(sut.concurrency()).toBe(2);
    g.open();
  });
});
