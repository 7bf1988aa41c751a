import { randomBytes } from 'node:crypto';

import { Connection, createConnection } from 'mysql2/promise';
import { createClient, RedisClientType } from 'redis';
import { Webhook } from 'standardwebhooks';

import { waitFor } from '../support/wait';
import { WebhookSink } from '../support/webhook-sink';
import { ADMIN_PASSWORD, buildService, ClusterBackend, provisionCluster, ServiceNode } from './cluster-node';

/**
 * Webhooks on two instances of the built service sharing one MariaDB database and one Redis
 * namespace: an event is queued by the instance where it happened only, and the outbox hands each
 * message to one instance, so a receiver gets it once — and, when it refused the first try, once
 * more, with the same id — never once per instance.
 */
jest.setTimeout(120_000);

const WRONG = 'Wrong#pass1';

describe('webhooks on two instances (one MariaDB + Redis)', () => {
  let backend: ClusterBackend;
  let a: ServiceNode;
  let b: ServiceNode;
  let db: Connection;
  let sink: WebhookSink;
  let adminToken: string;
  let hook: { id: string; secret: string };
  let seq = 0;

  beforeAll(async () => {
    const main = await buildService();
    backend = await provisionCluster();
    sink = await new WebhookSink().start();
    // A slow receiver widens the window in which both instances could send the same message.
    sink.delayMs = 30;
    const env = {
      DATABASE_URL: backend.databaseUrl,
      REDIS_URL: backend.redisUrl,
      REDIS_KEY_PREFIX: backend.prefix,
      CAPTCHA_ENABLED: 'false',
      ADMIN_INITIAL_PASSWORD: ADMIN_PASSWORD,
      BCRYPT_COST: '4',
      TRUST_PROXY: 'true',
      LOG_LEVEL: 'warn',
    };
    [a, b] = await Promise.all([ServiceNode.start('A', main, env), ServiceNode.start('B', main, env)]);
    await Promise.all([a.waitHealthy(), b.waitHealthy()]);
    db = await createConnection(backend.databaseUrl);
    adminToken = await a.token('admin', ADMIN_PASSWORD, '10.9.9.9');
    const saved = await admin(a, '/sys/webhook/save', {
      url: sink.at('/cluster'),
      events: ['account.locked', 'account.unlocked', 'login.failed'],
      enabled: true,
    });
    expect(saved.body).toMatchObject({ success: true });
    hook = saved.body.data;
  });

  afterAll(async () => {
    await Promise.allSettled([a?.stop(), b?.stop()]);
    await db?.end().catch(() => undefined);
    const redis = createClient({ url: backend.redisUrl }) as RedisClientType;
    await redis.connect();
    const keys: string[] = [];
    for await (const batch of redis.scanIterator({ MATCH: `${backend.prefix}*`, COUNT: 500 })) keys.push(...batch);
    if (keys.length) await redis.del(keys);
    await redis.close();
    await backend?.dispose();
    await sink?.stop();
  });

  const admin = <T = any>(node: ServiceNode, path: string, body: unknown = {}) =>
    node.post<T>(path, body, { token: adminToken, ip: '10.9.9.9' });

  async function createUser(node: ServiceNode): Promise<{ id: string; username: string }> {
    seq += 1;
    const username = `wh_${randomBytes(3).toString('hex')}${seq}`;
    const res = await admin(node, '/sys/user/create', {
      username,
      name: `Webhook ${seq}`,
      password: await node.encrypt('Passw0rd!x'),
      roles: [],
    });
    expect(res.body).toMatchObject({ success: true });
    return { id: res.body.data.id, username };
  }

  const rowsOf = async (): Promise<any[]> =>
    (
      await db.query<any[]>(
        "SELECT id, kind, status, attempts, claimed_by FROM sys_notification WHERE channel = 'webhook' AND user_id = ?",
        [hook.id],
      )
    )[0];

  /** What the receiver got, by webhook-id, each checked as a receiver checks it. */
  function byMessage() {
    const found = new Map<string, number[]>();
    for (const req of sink.requests) {
      expect(new Webhook(hook.secret).verify(req.raw, req.headers as Record<string, string>)).toEqual(req.body);
      const id = String(req.headers['webhook-id']);
      found.set(id, [...(found.get(id) ?? []), req.status]);
    }
    return found;
  }

  it('each event, whichever instance it happened on, reaches the receiver once', async () => {
    const users = [await createUser(a), await createUser(b), await createUser(a), await createUser(b)];
    // Actions on both instances at once: locks, unlocks and wrong passwords.
    await Promise.all(
      users.flatMap((user, i) => {
        const node = i % 2 ? b : a;
        const other = i % 2 ? a : b;
        return [
          (async () => {
            expect((await admin(node, '/sys/user/lock', { id: user.id })).body.code).toBe('OK');
            expect((await admin(other, '/sys/user/unlock', { id: user.id })).body.code).toBe('OK');
          })(),
          (async () => {
            // Refused either way (a wrong password, or locked just now): one login.failed.
            const { code } = (await other.login(user.username, WRONG, `10.8.0.${i}`)).body;
            expect(['BAD_CREDENTIALS', 'ACCOUNT_LOCKED']).toContain(code);
          })(),
        ];
      }),
    );
    const expected = users.length * 3;
    await waitFor(
      async () => {
        const rows = await rowsOf();
        return rows.length === expected && rows.every((r) => r.status === 'sent');
      },
      'every message sent',
      20_000,
      100,
    );
    const rows = await rowsOf();
    const received = byMessage();
    expect([...received.keys()].sort()).toEqual(rows.map((r) => r.id).sort());
    expect([...received.values()].every((statuses) => statuses.length === 1)).toBe(true);
    for (const user of users) {
      const about = sink.requests.filter((r) => r.body.data.userId === user.id).map((r) => r.body.type);
      expect(about.sort()).toEqual(['account.locked', 'account.unlocked', 'login.failed']);
    }
  });

  it('a refused first try is retried once, by one instance, with the same id', async () => {
    sink.requests.length = 0;
    sink.status = 503;
    try {
      const earlier = new Set((await rowsOf()).map((r) => r.id));
      const fresh = async () => (await rowsOf()).filter((r) => !earlier.has(r.id));
      const users = [await createUser(a), await createUser(b)];
      await Promise.all(users.map((user, i) => admin(i ? b : a, '/sys/user/lock', { id: user.id })));
      await waitFor(
        async () => {
          const rows = await fresh();
          return (
            rows.length === users.length &&
            rows.every((r) => r.status === 'pending' && Number(r.attempts) === 1 && r.claimed_by === null)
          );
        },
        'one refused try of each message',
        10_000,
        100,
      );
      sink.status = 200;
      // The outbox's first retry comes 5 s later; both instances' pollers find it due.
      await waitFor(async () => (await fresh()).every((r) => r.status === 'sent'), 'the retries', 20_000, 100);
      const received = byMessage();
      expect(received.size).toBe(users.length);
      for (const statuses of received.values()) expect(statuses).toEqual([503, 200]);
      for (const user of users) {
        expect(sink.requests.filter((r) => r.body.data.userId === user.id)).toHaveLength(2);
      }
    } finally {
      sink.status = 200;
    }
  });
});
