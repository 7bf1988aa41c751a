import { randomBytes } from 'node:crypto';

import { createClient, RedisClientType } from 'redis';

import { sleep } from '../support/wait';
import { ADMIN_PASSWORD, buildService, ClusterBackend, provisionCluster, ServiceNode, sha256hex } from './cluster-node';

/**
 * Token introspection across instances: two built services on one MariaDB database and one Redis
 * namespace. A kick-out, a session ended by an administrator or a strategy saved on A is what an
 * introspection on B answers, and a renewal made by B's introspection is the session A serves.
 */
jest.setTimeout(120_000);

const PASSWORD = 'Passw0rd!x';
const GATEWAY_IP = '10.8.8.8';

describe('token introspection on two instances (MariaDB + Redis)', () => {
  let backend: ClusterBackend;
  let a: ServiceNode;
  let b: ServiceNode;
  let redis: RedisClientType;
  let adminToken: string;
  let gatewayToken: string;

  beforeAll(async () => {
    const main = await buildService();
    backend = await provisionCluster();
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
    a = await ServiceNode.start('A', main, env);
    await a.waitHealthy();
    b = await ServiceNode.start('B', main, env);
    await b.waitHealthy();
    redis = createClient({ url: backend.redisUrl }) as RedisClientType;
    await redis.connect();
    adminToken = await a.token('admin', ADMIN_PASSWORD, '10.9.9.9');
    expect(
      (await admin(a, '/sys/role/save', { code: 'gateway', name: 'gateway', permissions: ['sys:token:introspect'] }))
        .body.success,
    ).toBe(true);
    const gateway = await createUser(a, ['gateway']);
    gatewayToken = await a.token(gateway.username, PASSWORD, GATEWAY_IP);
  });

  afterAll(async () => {
    await Promise.allSettled([a?.stop(), b?.stop()]);
    if (redis?.isOpen) {
      const keys: string[] = [];
      for await (const batch of redis.scanIterator({ MATCH: `${backend.prefix}*`, COUNT: 500 })) keys.push(...batch);
      if (keys.length) await redis.del(keys);
      await redis.close();
    }
    await backend?.dispose();
  });

  const admin = <T = any>(node: ServiceNode, path: string, body: unknown = {}) =>
    node.post<T>(path, body, { token: adminToken, ip: '10.9.9.9' });

  async function createUser(node: ServiceNode, roles: string[] = []): Promise<{ id: string; username: string }> {
    const username = `it_${randomBytes(4).toString('hex')}`;
    const res = await admin(node, '/sys/user/create', {
      username,
      name: username,
      password: await node.encrypt(PASSWORD),
      roles,
    });
    expect(res.body).toMatchObject({ success: true });
    return { id: res.body.data.id, username };
  }

  /** What the gateway learns from `node` about `token`; the call itself must succeed. */
  async function introspect(node: ServiceNode, token: string, ip?: string): Promise<any> {
    const res = await node.post('/sys/token/introspect', ip ? { token, ip } : { token }, {
      token: gatewayToken,
      ip: GATEWAY_IP,
    });
    expect(res.body).toMatchObject({ success: true, code: 'OK' });
    return res.body.data;
  }

  /** Saves login-strategy fields on A and waits until B's introspections follow them. */
  async function saveOnA(fields: Record<string, unknown>, appliedOnB: () => Promise<boolean>): Promise<void> {
    expect((await admin(a, '/sys/strategy/login/save', fields)).body.success).toBe(true);
    const giveUpAt = Date.now() + 1000;
    while (!(await appliedOnB())) {
      if (Date.now() > giveUpAt) throw new Error(`B did not apply ${JSON.stringify(fields)} within a second`);
      await sleep(25);
    }
  }

  it('a kick-out by a second login on A is KICKED_OUT once on B, then NOT_LOGGED_IN on A', async () => {
    const user = await createUser(a);
    await saveOnA(
      { multiOnline: false },
      async () => (await admin(b, '/sys/strategy/login/info')).body.data.multiOnline === false,
    );
    try {
      const first = await a.token(user.username, PASSWORD, '10.1.0.1');
      expect(await introspect(b, first)).toMatchObject({ active: true, userId: user.id, username: user.username });
      const second = await a.token(user.username, PASSWORD, '10.1.0.2');
      expect(await introspect(b, first)).toEqual({ active: false, reason: 'KICKED_OUT' });
      expect(await introspect(a, first)).toEqual({ active: false, reason: 'NOT_LOGGED_IN' });
      expect((await a.post('/sys/me/info', {}, { token: first })).body.code).toBe('NOT_LOGGED_IN');
      expect(await introspect(b, second)).toMatchObject({ active: true });
    } finally {
      await saveOnA(
        { multiOnline: true },
        async () => (await admin(b, '/sys/strategy/login/info')).body.data.multiOnline === true,
      );
    }
  });

  it('a session ended on A by /sys/online/kickout is NOT_LOGGED_IN on B at once', async () => {
    const user = await createUser(a);
    const token = await b.token(user.username, PASSWORD, '10.1.1.1');
    expect(await introspect(b, token)).toMatchObject({ active: true });
    expect((await admin(a, '/sys/online/kickout', { tokenId: sha256hex(token) })).body.success).toBe(true);
    expect(await introspect(b, token)).toEqual({ active: false, reason: 'NOT_LOGGED_IN' });
  });

  it('bindIp saved on A: B answers IP_MISMATCH for another ip', async () => {
    const user = await createUser(a);
    const token = await a.token(user.username, PASSWORD, '10.1.2.1');
    try {
      await saveOnA({ bindIp: true }, async () => (await introspect(b, token, '10.1.2.2')).active === false);
      expect(await introspect(b, token, '10.1.2.2')).toEqual({ active: false, reason: 'IP_MISMATCH' });
      expect(await introspect(b, token, '10.1.2.1')).toMatchObject({ active: true });
    } finally {
      await saveOnA({ bindIp: false }, async () => (await introspect(b, token, '10.1.2.2')).active === true);
    }
  });

  it('a renewal made by an introspection on B is the session A serves', async () => {
    const user = await createUser(a);
    const token = await a.token(user.username, PASSWORD, '10.1.3.1');
    const key = `${backend.prefix}AUTH_TOKEN:${sha256hex(token)}`;
    // The clock is real here: bring the stored expiry below half the validity instead of waiting.
    const stored = JSON.parse((await redis.get(key))!);
    const soon = Date.now() + 5 * 60_000;
    await redis.set(key, JSON.stringify({ ...stored, expireAt: soon }), { KEEPTTL: true });
    const renewed = await introspect(b, token);
    expect(renewed.expireAt).toBeGreaterThan(soon + 20 * 60_000);
    expect(JSON.parse((await redis.get(key))!).expireAt).toBe(renewed.expireAt);
    expect(await introspect(a, token)).toMatchObject({ active: true, expireAt: renewed.expireAt });
  });
});
