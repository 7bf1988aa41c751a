import { FailoverFence, FENCE_MAX_MS } from './failover-fence';

describe('FailoverFence: writes stop while the Sentinels fail the primary over', () => {
  let now = 1_000_000;
  const fence = () => new FailoverFence([], 'lps-main', () => now);
  const old = { host: '10.0.0.1', port: 6379 };
  const promoted = { host: '10.0.0.2', port: 6379 };

  it('refuses writes from +try-failover of its primary until the service talks to another primary', () => {
    const f = fence();
    expect(f.writesRefused).toBe(false);
    const before = f.epoch;
    f.onEvent('+try-failover', 'master lps-main 10.0.0.1 6379');
    expect(f.writesRefused).toBe(true);
    // A write in flight when the failover started does not count as done.
    expect(f.epoch).not.toBe(before);
    // Reconnecting to the same (old) primary does not end the fence: it may still be demoted.
    f.primaryMoved(old);
    expect(f.writesRefused).toBe(true);
    f.primaryMoved(promoted);
    expect(f.writesRefused).toBe(false);
  });

  it('ends when the Sentinels give up, or after FENCE_MAX_MS at most', () => {
    const f = fence();
    f.onEvent('+try-failover', 'master lps-main 10.0.0.1 6379');
    f.onEvent('-failover-abort-no-good-slave', 'master lps-main 10.0.0.1 6379');
    expect(f.writesRefused).toBe(false);
    f.onEvent('+try-failover', 'master lps-main 10.0.0.1 6379');
    now += FENCE_MAX_MS - 1;
    expect(f.writesRefused).toBe(true);
    now += 1;
    expect(f.writesRefused).toBe(false);
  });

  it('ignores failovers of other masters the Sentinels watch, and other messages', () => {
    const f = fence();
    f.onEvent('+try-failover', 'master other 10.0.0.9 6379');
    f.onEvent('+try-failover', 'slave lps-main 10.0.0.1 6379');
    expect(f.writesRefused).toBe(false);
  });

  it('a lost connection to the primary changes the epoch (a WAIT after it speaks for another connection)', () => {
    const f = fence();
    const before = f.epoch;
    f.connectionLost();
    expect(f.epoch).not.toBe(before);
    expect(f.writesRefused).toBe(false);
  });
});
