import { EventEmitter2 } from '@nestjs/event-emitter';
import { createCache } from 'cache-manager';

import type { SettingsRepository } from './settings.repository';
import { StrategyService } from './strategy.service';
import { StrategyGroup, SysPropsChangedEvent } from './strategy.types';

/** The stored login group, read through a repository that counts reads and can be held mid-read. */
function storedSettings() {
  const stored = new Map<string, string>([['sessionExpireMinutes', '30']]);
  let reads = 0;
  let hold: Promise<void> | null = null;
  const repository = {
    async readGroup() {
      reads += 1;
      const snapshot = new Map(stored);
      await hold;
      return snapshot;
    },
  } as unknown as SettingsRepository;
  return {
    repository,
    stored,
    reads: () => reads,
    /** The next reads wait until the returned function is called. */
    holdReads: () => {
      let release!: () => void;
      hold = new Promise<void>((resolve) => {
        release = resolve;
      });
      return () => {
        hold = null;
        release();
      };
    },
  };
}

const serviceOver = (repository: SettingsRepository) =>
  new StrategyService(repository, createCache(), new EventEmitter2(), {} as never, {} as never, {} as never);

const changed = (service: StrategyService) => service.onChanged(new SysPropsChangedEvent(StrategyGroup.LOGIN, true));

describe('StrategyService: the login group on the request path', () => {
  it('reads the store once for many requests, and again after a change', async () => {
    const settings = storedSettings();
    const service = serviceOver(settings.repository);
    for (let i = 0; i < 100; i += 1) expect((await service.loginStrategy()).sessionExpireMinutes).toBe(30);
    expect(settings.reads()).toBe(1);

    settings.stored.set('sessionExpireMinutes', '45');
    await changed(service);
    expect((await service.loginStrategy()).sessionExpireMinutes).toBe(45);
    expect(settings.reads()).toBe(2);
  });

  it('does not keep a value read before a change that landed while it was being read', async () => {
    const settings = storedSettings();
    const service = serviceOver(settings.repository);
    const release = settings.holdReads();
    const early = service.loginStrategy();
    while (settings.reads() === 0) await new Promise(setImmediate);
    // The save lands while the read above is still under way: what it read is the old value.
    settings.stored.set('sessionExpireMinutes', '45');
    await changed(service);
    release();
    expect((await early).sessionExpireMinutes).toBe(30);
    // The next request must not be answered from that old read.
    expect((await service.loginStrategy()).sessionExpireMinutes).toBe(45);
  });
});
