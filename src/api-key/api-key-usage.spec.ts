import { FakeClock } from '../../test/support/fake-clock';
import { unit } from '../../test/support/unit';
import type { ApiKeyRepository } from './api-key.repository';
import { ApiKeyUsage } from './api-key-usage';

class FakeKeys implements Pick<ApiKeyRepository, 'touch'> {
  readonly writes: [string, number][] = [];
  failing = false;
  async touch(id: string, at: Date) {
    if (this.failing) throw Object.assign(new Error('down'), { code: 'ECONNREFUSED' });
    this.writes.push([id, at.getTime()]);
  }
}

describe('ApiKeyUsage', () => {
  const start = Date.UTC(2026, 0, 1);
  let clock: FakeClock;
  let keys: FakeKeys;
  let usage: ApiKeyUsage;

  beforeEach(async () => {
    clock = new FakeClock(start);
    keys = new FakeKeys();
    ({ service: usage } = await unit(ApiKeyUsage, { ApiKeyRepository: keys, Clock: clock }));
  });

  it('writes nothing per request; a flush writes one UPDATE per key used, with its latest use', async () => {
    for (let i = 0; i < 100; i++) {
      usage.touch('a');
      clock.advance(10);
    }
    usage.touch('b');
    expect(keys.writes).toEqual([]);
    await usage.flush();
    expect(keys.writes).toEqual([
      ['a', start + 990],
      ['b', start + 1000],
    ]);
    await usage.flush();
    expect(keys.writes).toHaveLength(2);
  });

  it('keeps what it could not write for the next flush, unless the key was used again since', async () => {
    usage.touch('a');
    usage.touch('b');
    keys.failing = true;
    await usage.flush();
    keys.failing = false;
    clock.advance(5_000);
    usage.touch('b');
    await usage.flush();
    expect(keys.writes).toEqual([
      ['a', start],
      ['b', start + 5_000],
    ]);
  });

  it('writes what it holds when the application stops', async () => {
    usage.touch('a');
    await usage.beforeApplicationShutdown();
    expect(keys.writes).toEqual([['a', start]]);
  });
});
