import { randomUUID } from 'node:crypto';

import { FakeClock } from '../../test/support/fake-clock';
import { unit } from '../../test/support/unit';
import { MemoryKvStore } from '../store/memory-kv.store';
import { WebhookCache } from './webhook.cache';
import type { WebhookEntity } from './webhook.entity';
import type { WebhookRepository } from './webhook.repository';

/** sys_webhook as a list, counting the queries of the enabled webhooks. */
class FakeWebhooks implements Pick<WebhookRepository, 'enabled'> {
  readonly rows: WebhookEntity[] = [];
  enabledCalls = 0;
  /** Holds each query until released, when set. */
  gate?: Promise<void>;
  async enabled() {
    this.enabledCalls += 1;
    // A copy, as a query answers: later changes to the table do not reach rows already read.
    const found = this.rows.filter((r) => r.enabled).map((r) => ({ ...r }));
    await this.gate;
    return found;
  }
  add(events: string[], enabled = true): WebhookEntity {
    const row: WebhookEntity = {
      id: randomUUID(),
      url: 'https://siem.example.internal/hook',
      events: JSON.stringify(events),
      enabled,
      secret: 'v1.sealed',
      createTime: new Date(),
      updateTime: new Date(),
    };
    this.rows.push(row);
    return row;
  }
  remove(id: string): void {
    this.rows.splice(
      this.rows.findIndex((r) => r.id === id),
      1,
    );
  }
}

describe('WebhookCache', () => {
  let rows: FakeWebhooks;
  let clock: FakeClock;
  let store: MemoryKvStore;
  /** The instance where the events happen. */
  let cache: WebhookCache;
  /** Another instance on the same database and store, where the webhooks are administered. */
  let other: WebhookCache;

  beforeEach(async () => {
    rows = new FakeWebhooks();
    clock = new FakeClock();
    store = new MemoryKvStore(clock);
    ({ service: cache } = await unit(WebhookCache, { WebhookRepository: rows, KvStore: store, Clock: clock }));
    ({ service: other } = await unit(WebhookCache, { WebhookRepository: rows, KvStore: store, Clock: clock }));
  });

  const ids = async (on = cache) => (await on.enabled()).map((hook) => hook.id);

  it('answers many events, spread over seconds, from one query while nothing changes', async () => {
    const hook = rows.add(['login.succeeded', 'login.failed']);
    rows.add(['login.failed'], false);
    const get = jest.spyOn(store, 'get');
    for (let i = 0; i < 1_000; i++) {
      expect(await cache.enabled()).toEqual([{ id: hook.id, events: new Set(['login.succeeded', 'login.failed']) }]);
      clock.advance(10);
    }
    expect(rows.enabledCalls).toBe(1);
    // The stamp is compared about once a second, not once an event.
    expect(get.mock.calls.length).toBeLessThanOrEqual(2 * 11);
  });

  it('sees a webhook created on another instance once a second has passed', async () => {
    expect(await ids()).toEqual([]);
    const hook = rows.add(['login.succeeded']);
    await other.announce();
    clock.advance(999);
    expect(await ids()).toEqual([]);
    clock.advance(1);
    expect(await ids()).toEqual([hook.id]);
    expect(rows.enabledCalls).toBe(2);
  });

  it('stops at a webhook deleted or disabled on another instance once a second has passed', async () => {
    const deleted = rows.add(['login.succeeded']);
    const disabled = rows.add(['login.succeeded']);
    expect(await ids()).toEqual([deleted.id, disabled.id]);
    rows.remove(deleted.id);
    disabled.enabled = false;
    await other.announce();
    clock.advance(1_000);
    expect(await ids()).toEqual([]);
  });

  it('sees a change made here at the next event, the clock unmoved', async () => {
    expect(await ids()).toEqual([]);
    const hook = rows.add(['account.locked']);
    await cache.announce();
    expect(await ids()).toEqual([hook.id]);
    rows.remove(hook.id);
    await cache.announce();
    expect(await ids()).toEqual([]);
  });

  it('sees a change made here at the next event even when a read begun before it answers after it', async () => {
    let release!: () => void;
    rows.gate = new Promise<void>((resolve) => (release = resolve));
    const before = cache.enabled();
    await new Promise((resolve) => setImmediate(resolve));
    expect(rows.enabledCalls).toBe(1);
    const hook = rows.add(['account.locked']);
    await cache.announce();
    release();
    // The event that was under way is answered with what it read; the next one is not.
    expect(await before).toEqual([]);
    rows.gate = undefined;
    expect(await ids()).toEqual([hook.id]);
  });

  it('with the stamp write lost, sees a change once it reads the webhooks again (each minute)', async () => {
    expect(await ids()).toEqual([]);
    const hook = rows.add(['login.failed']);
    clock.advance(59_000);
    expect(await ids()).toEqual([]);
    clock.advance(1_000);
    expect(await ids()).toEqual([hook.id]);
  });

  it('with the store out of reach, the database answers each event, as without the cache', async () => {
    const hook = rows.add(['login.failed']);
    jest.spyOn(store, 'get').mockRejectedValue(new Error('connection lost'));
    expect(await ids()).toEqual([hook.id]);
    expect(await ids()).toEqual([hook.id]);
    expect(rows.enabledCalls).toBe(2);
  });
});
