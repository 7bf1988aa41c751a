import { createHash, randomBytes } from 'node:crypto';

import { createClient } from 'redis';

import { KvStore } from '../../src/store/kv.store';
import { MemoryKvStore } from '../../src/store/memory-kv.store';
import { json, OneTimeKind, OneTimeStore, TEXT } from '../../src/store/one-time-store';
import { RedisKvStore } from '../../src/store/redis-kv.store';
import { FakeClock } from '../support/fake-clock';
import { testKeyPrefix } from '../support/redis-keys';

const REDIS = process.env.REDIS_TEST_URL ?? 'redis://127.0.0.1:6379';
const sha256hex = (value: string) => createHash('sha256').update(value).digest('hex');

/** Deletes every key under a prefix (SCAN, never KEYS). */
async function purge(prefix: string): Promise<void> {
  const raw = createClient({ url: REDIS });
  await raw.connect();
  try {
    for await (const batch of raw.scanIterator({ MATCH: `${prefix}*`, COUNT: 100 })) {
      const keys = ([] as string[]).concat(batch as string | string[]);
      if (keys.length) await raw.del(keys);
    }
  } finally {
    await raw.close();
  }
}

interface Opened {
  store: KvStore;
  /** A second handle on the same data: another instance sharing Redis, the same process memory otherwise. */
  other: KvStore;
  clock: FakeClock;
  dispose(): Promise<void>;
}

interface Subject {
  name: 'memory' | 'redis';
  open(): Promise<Opened>;
}

const SUBJECTS: Subject[] = [
  {
    name: 'memory',
    async open() {
      const clock = new FakeClock();
      const store = new MemoryKvStore(clock);
      return { store, other: store, clock, dispose: () => store.close() };
    },
  },
  {
    name: 'redis',
    async open() {
      const prefix = testKeyPrefix('ot');
      const [store, other] = await Promise.all([
        RedisKvStore.connect(REDIS, prefix),
        RedisKvStore.connect(REDIS, prefix),
      ]);
      return {
        store,
        other,
        clock: new FakeClock(),
        async dispose() {
          await Promise.all([store.close(), other.close()]);
          await purge(prefix);
        },
      };
    },
  },
];

interface Ticket {
  owner: string;
  n?: number;
}

const MINUTE = 60_000;
const TICKETS: OneTimeKind<Ticket> = {
  key: (id) => `OT_TICKET:${id}`,
  ttlMs: MINUTE,
  hashed: true,
  format: json<Ticket>(),
};
const CODES: OneTimeKind<string> = {
  key: (id) => `OT_CODE:${id}`,
  ttlMs: MINUTE,
  hashed: false,
  format: TEXT,
  generate: () => `code-${randomBytes(6).toString('hex')}`,
};
const SHAPED: OneTimeKind<Ticket> = { ...TICKETS, key: (id) => `OT_SHAPED:${id}`, shape: /^[A-Za-z0-9_-]{43}$/ };

describe.each(SUBJECTS)('OneTimeStore on $name', (subject) => {
  let opened: Opened;
  let tickets: OneTimeStore<Ticket>;
  let codes: OneTimeStore<string>;
  beforeAll(async () => {
    opened = await subject.open();
    tickets = new OneTimeStore(opened.store, opened.clock, TICKETS);
    codes = new OneTimeStore(opened.store, opened.clock, CODES);
  });
  afterAll(() => opened.dispose());

  describe('issue and consume', () => {
    it('issues a fresh 256-bit credential each time, whose payload one consume returns and the next does not', async () => {
      const issued = await Promise.all(Array.from({ length: 20 }, (_, n) => tickets.issue({ owner: 'u1', n })));
      for (const credential of issued) expect(credential).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(new Set(issued).size).toBe(20);
      await expect(tickets.consume(issued[3])).resolves.toEqual({ owner: 'u1', n: 3 });
      await expect(tickets.consume(issued[3])).resolves.toBeNull();
      await expect(tickets.consume(issued[4])).resolves.toEqual({ owner: 'u1', n: 4 });
    });

    it('an unknown credential, an empty one and one of another kind are null', async () => {
      const credential = await tickets.issue({ owner: 'u1' });
      await expect(tickets.consume('no-such-credential')).resolves.toBeNull();
      await expect(tickets.consume('')).resolves.toBeNull();
      await expect(codes.consume(credential)).resolves.toBeNull();
      await expect(tickets.consume(credential)).resolves.toEqual({ owner: 'u1' });
    });

    it('takes a credential the caller chose, and the kind’s own generator', async () => {
      await expect(tickets.issue({ owner: 'u2' }, 'chosen')).resolves.toBe('chosen');
      await expect(tickets.consume('chosen')).resolves.toEqual({ owner: 'u2' });
      const code = await codes.issue('u3');
      expect(code).toMatch(/^code-[0-9a-f]{12}$/);
      await expect(codes.consume(code)).resolves.toBe('u3');
    });
  });

  describe('what the store holds', () => {
    it('hashed: only the SHA-256 of the credential, in the key; the payload with its end by the injected clock', async () => {
      const credential = await tickets.issue({ owner: 'u1' });
      await expect(opened.store.get(`OT_TICKET:${credential}`)).resolves.toBeNull();
      const raw = await opened.store.get(`OT_TICKET:${sha256hex(credential)}`);
      expect(raw).not.toContain(credential);
      expect(JSON.parse(raw!)).toEqual({ owner: 'u1', expireAt: opened.clock.nowMs() + MINUTE });
      const ttl = await opened.store.ttl(`OT_TICKET:${sha256hex(credential)}`);
      expect(ttl).toBeGreaterThan(MINUTE - 10_000);
      expect(ttl).toBeLessThanOrEqual(MINUTE);
    });

    it('not hashed, as text: the payload as it is, under the credential, with the lifetime', async () => {
      const code = await codes.issue('user-7');
      await expect(opened.store.get(`OT_CODE:${code}`)).resolves.toBe('user-7');
      const ttl = await opened.store.ttl(`OT_CODE:${code}`);
      expect(ttl).toBeGreaterThan(MINUTE - 10_000);
      expect(ttl).toBeLessThanOrEqual(MINUTE);
    });
  });

  describe('expiry', () => {
    it('a JSON credential is live until its lifetime has passed by the injected clock, then gone', async () => {
      const [a, b, c] = await Promise.all([1, 2, 3].map((n) => tickets.issue({ owner: 'u1', n })));
      opened.clock.advance(MINUTE - 1);
      await expect(tickets.peek(a)).resolves.toEqual({ owner: 'u1', n: 1 });
      await expect(tickets.consume(b)).resolves.toEqual({ owner: 'u1', n: 2 });
      opened.clock.advance(1);
      await expect(tickets.peek(a)).resolves.toBeNull();
      await expect(tickets.consume(c)).resolves.toBeNull();
    });

    if (subject.name === 'memory') {
      it('a text credential ends with the store’s lifetime, which follows the injected clock', async () => {
        const code = await codes.issue('u1');
        opened.clock.advance(MINUTE);
        await expect(codes.consume(code)).resolves.toBeNull();
      });
    }
  });

  describe('peek and revoke', () => {
    it('peek reads without consuming; consume then still wins once', async () => {
      const credential = await tickets.issue({ owner: 'u1' });
      await expect(tickets.peek(credential)).resolves.toEqual({ owner: 'u1' });
      await expect(tickets.peek(credential)).resolves.toEqual({ owner: 'u1' });
      await expect(tickets.consume(credential)).resolves.toEqual({ owner: 'u1' });
      await expect(tickets.peek(credential)).resolves.toBeNull();
    });

    it('revoke ends a credential; revoking an absent one is harmless', async () => {
      const credential = await tickets.issue({ owner: 'u1' });
      await tickets.revoke(credential);
      await expect(tickets.peek(credential)).resolves.toBeNull();
      await expect(tickets.consume(credential)).resolves.toBeNull();
      await expect(tickets.revoke(credential)).resolves.toBeUndefined();
    });
  });

  describe('shape', () => {
    it('a credential of another shape is refused without a read, even when its key exists', async () => {
      const shaped = new OneTimeStore(opened.store, opened.clock, SHAPED);
      const good = await shaped.issue({ owner: 'u1' });
      await shaped.issue({ owner: 'u2' }, 'short');
      const reads = [
        jest.spyOn(opened.store, 'get'),
        jest.spyOn(opened.store, 'getDel'),
        jest.spyOn(opened.store, 'del'),
      ];
      try {
        await expect(shaped.peek('short')).resolves.toBeNull();
        await expect(shaped.consume('short')).resolves.toBeNull();
        await shaped.revoke('short');
        for (const spy of reads) expect(spy).not.toHaveBeenCalled();
      } finally {
        for (const spy of reads) spy.mockRestore();
      }
      await expect(shaped.consume(good)).resolves.toEqual({ owner: 'u1' });
    });
  });

  describe('consumed once under concurrency', () => {
    it('of 40 parallel consumes, half through another instance, exactly one gets the payload', async () => {
      const elsewhere = new OneTimeStore(opened.other, opened.clock, TICKETS);
      for (let round = 0; round < 5; round++) {
        const credential = await tickets.issue({ owner: 'u1', n: round });
        const results = await Promise.all(
          Array.from({ length: 40 }, (_, i) => (i % 2 ? elsewhere : tickets).consume(credential)),
        );
        expect(results.filter((r) => r !== null)).toEqual([{ owner: 'u1', n: round }]);
      }
    });

    it('a text credential too: of 40 parallel consumes one wins', async () => {
      const elsewhere = new OneTimeStore(opened.other, opened.clock, CODES);
      const code = await codes.issue('u9');
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) => (i % 2 ? elsewhere : codes).consume(code)),
      );
      expect(results.filter((r) => r !== null)).toEqual(['u9']);
    });
  });
});
