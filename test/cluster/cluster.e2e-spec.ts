import { randomBytes } from 'node:crypto';

import { Connection, createConnection } from 'mysql2/promise';
import { createClient, RedisClientType } from 'redis';

import { stepAt, totpCode } from '../../src/mfa/totp';
import { ACCOUNT_LOCKED, KICKED_OUT, NOT_LOGGED_IN, QRCODE_INVALID } from '../support/envelopes';
import { SseClient } from '../support/sse-client';
import { sleep, waitFor } from '../support/wait';
import { WebhookSink } from '../support/webhook-sink';
import { ADMIN_PASSWORD, buildService, ClusterBackend, provisionCluster, ServiceNode, sha256hex } from './cluster-node';

/**
 * Scale-out: two instances of the built service, started together as separate
 * processes on ONE fresh MariaDB database and ONE Redis namespace, behave as one service.
 * Everything goes over real HTTP; Redis and the database are read only to check the
 * stored state.
 */
jest.setTimeout(120_000);

const WRONG = 'Wrong#pass1';
const PASSWORD = 'Passw0rd!x';

describe('two instances on one MariaDB + Redis (scale-out)', () => {
  let backend: ClusterBackend;
  let a: ServiceNode;
  let b: ServiceNode;
  let db: Connection;
  let redis: RedisClientType;
  let adminToken: string;
  let sms: WebhookSink;
  let seq = 0;

  beforeAll(async () => {
    const main = await buildService();
    backend = await provisionCluster();
    sms = await new WebhookSink().start();
    sms.delayMs = 30;
    const env = {
      DATABASE_URL: backend.databaseUrl,
      REDIS_URL: backend.redisUrl,
      REDIS_KEY_PREFIX: backend.prefix,
      CAPTCHA_ENABLED: 'false',
      ADMIN_INITIAL_PASSWORD: ADMIN_PASSWORD,
      BCRYPT_COST: '4',
      TRUST_PROXY: 'true',
      LOG_LEVEL: 'warn',
      SMS_WEBHOOK_URL: sms.url,
      // One notice per wrong password: the notification case races the instances for outbox rows.
      LOGIN_NOTICE_WINDOW_MINUTES: '0',
    };
    // Started at the same moment, as an orchestrator starts replicas: both see an empty database.
    [a, b] = await Promise.all([ServiceNode.start('A', main, env), ServiceNode.start('B', main, env)]);
    await Promise.all([a.waitHealthy(), b.waitHealthy()]);
    db = await createConnection(backend.databaseUrl);
    redis = createClient({ url: backend.redisUrl }) as RedisClientType;
    await redis.connect();
    adminToken = await a.token('admin', ADMIN_PASSWORD, '10.9.9.9');
  });

  afterAll(async () => {
    await Promise.allSettled([a?.stop(), b?.stop()]);
    await db?.end().catch(() => undefined);
    if (redis?.isOpen) {
      // SCAN, never KEYS (STYLE.md): only this run's namespace.
      const keys: string[] = [];
      for await (const batch of redis.scanIterator({ MATCH: `${backend.prefix}*`, COUNT: 500 })) keys.push(...batch);
      if (keys.length) await redis.del(keys);
      await redis.close();
    }
    await backend?.dispose();
    await sms?.stop();
  });

  const admin = <T = any>(node: ServiceNode, path: string, body: unknown = {}) =>
    node.post<T>(path, body, { token: adminToken, ip: '10.9.9.9' });

  async function saveLoginStrategy(node: ServiceNode, fields: Record<string, unknown>) {
    const res = await admin(node, '/sys/strategy/login/save', fields);
    expect(res.body).toMatchObject({ success: true, code: 'OK' });
  }

  /** Polls an instance's login strategy until it shows the fields; returns how long that took. */
  async function waitForStrategy(node: ServiceNode, fields: Record<string, unknown>, limitMs = 1000): Promise<number> {
    const started = Date.now();
    for (;;) {
      const res = await admin(node, '/sys/strategy/login/info');
      expect(res.body.success).toBe(true);
      if (Object.entries(fields).every(([k, v]) => res.body.data[k] === v)) return Date.now() - started;
      if (Date.now() - started > limitMs) {
        throw new Error(`${node.name} still shows ${JSON.stringify(res.body.data)} after ${limitMs} ms`);
      }
      await sleep(25);
    }
  }

  async function createUser(node: ServiceNode): Promise<{ id: string; username: string }> {
    seq += 1;
    const username = `cl_${randomBytes(3).toString('hex')}${seq}`;
    const res = await admin(node, '/sys/user/create', {
      username,
      name: `Cluster ${seq}`,
      mobile: `1390000${String(seq).padStart(4, '0')}`,
      password: await node.encrypt(PASSWORD),
      roles: [],
    });
    expect(res.body).toMatchObject({ success: true });
    return { id: res.body.data.id, username };
  }

  it('both instances share one schema, one RSA key and one admin', async () => {
    const [keyA, keyB] = await Promise.all([a.post('/sys/publicKey'), b.post('/sys/publicKey')]);
    expect(keyA.body.data.keyId).toBe(keyB.body.data.keyId);
    const [admins] = await db.query<any[]>("SELECT COUNT(*) AS n FROM sys_user WHERE username = 'admin'");
    expect(Number(admins[0].n)).toBe(1);
    // A token from A works on B: sessions live in Redis.
    const me = await admin(b, '/sys/me/info');
    expect(me.body).toMatchObject({ success: true, data: { username: 'admin' } });
  });

  it('a login-strategy save on A is applied by B within one second', async () => {
    // B has the current values cached: the save must invalidate that cache, not a first load.
    const before = await admin(b, '/sys/strategy/login/info');
    const next = before.body.data.sessionExpireMinutes === 45 ? 46 : 45;
    await saveLoginStrategy(a, { sessionExpireMinutes: next, lockMinutes: 77 });
    const appliedIn = await waitForStrategy(b, { sessionExpireMinutes: next, lockMinutes: 77 }, 1000);
    expect(appliedIn).toBeLessThan(1000);
    await saveLoginStrategy(b, { sessionExpireMinutes: 30, lockMinutes: 1440 });
    await waitForStrategy(a, { sessionExpireMinutes: 30, lockMinutes: 1440 }, 1000);
  });

  it('multiOnline=false: a login on B kicks out the token issued by A', async () => {
    await saveLoginStrategy(a, { multiOnline: false });
    await waitForStrategy(b, { multiOnline: false });
    try {
      const user = await createUser(a);
      const fromA = await a.token(user.username, PASSWORD, '10.1.0.1');
      expect((await a.post('/sys/me/info', {}, { token: fromA })).body.success).toBe(true);

      const fromB = await b.token(user.username, PASSWORD, '10.1.0.2');

      const old = await a.post('/sys/me/info', {}, { token: fromA });
      expect(old.status).toBe(401);
      expect(old.body).toMatchObject({ success: false, code: 'KICKED_OUT' });
      expect(old.body).toEqual(KICKED_OUT);
      // KICKED_OUT once, then the session is gone — on either instance.
      const afterKick = await b.post('/sys/me/info', {}, { token: fromA });
      expect(afterKick.body.code).toBe('NOT_LOGGED_IN');
      expect(afterKick.status).toBe(401);
      expect(afterKick.body).toEqual(NOT_LOGGED_IN);
      expect((await a.post('/sys/me/info', {}, { token: fromB })).body).toMatchObject({ success: true });
    } finally {
      await saveLoginStrategy(a, { multiOnline: true });
      await waitForStrategy(b, { multiOnline: true });
    }
  });

  it('maxSessionsPerUser: a login on B kicks out the oldest session, issued by A', async () => {
    await saveLoginStrategy(a, { multiOnline: true, maxSessionsPerUser: 2 });
    await waitForStrategy(b, { maxSessionsPerUser: 2 });
    try {
      const user = await createUser(a);
      const first = await a.token(user.username, PASSWORD, '10.1.1.1');
      await sleep(5); // distinct login times: "oldest" is then unambiguous
      const second = await a.token(user.username, PASSWORD, '10.1.1.2');
      await sleep(5);
      const third = await b.token(user.username, PASSWORD, '10.1.1.3');

      expect((await b.post('/sys/me/info', {}, { token: first })).body).toEqual(KICKED_OUT);
      expect((await a.post('/sys/me/info', {}, { token: first })).body).toEqual(NOT_LOGGED_IN);
      expect((await b.post('/sys/me/info', {}, { token: second })).body.success).toBe(true);
      expect((await a.post('/sys/me/info', {}, { token: third })).body.success).toBe(true);
      // Parallel logins on both instances: the account's login mutex lives in Redis, so exactly two stay live.
      const tokens = await Promise.all(
        Array.from({ length: 6 }, (_, i) => (i % 2 ? a : b).token(user.username, PASSWORD, `10.1.2.${i}`)),
      );
      const live = await Promise.all(
        [second, third, ...tokens].map(async (t) => (await a.post('/sys/me/info', {}, { token: t })).body.success),
      );
      expect(live.filter(Boolean)).toHaveLength(2);
    } finally {
      await saveLoginStrategy(a, { maxSessionsPerUser: 0 });
      await waitForStrategy(b, { maxSessionsPerUser: 0 });
    }
  });

  it('lockout is exact with 20 parallel wrong passwords split across A and B', async () => {
    await saveLoginStrategy(a, { maxFailureTimes: 5, maxFailureInterval: 24, lockMinutes: 60 });
    await waitForStrategy(b, { maxFailureTimes: 5, maxFailureInterval: 24, lockMinutes: 60 });
    const user = await createUser(a);
    const ciphertexts = await Promise.all(Array.from({ length: 20 }, () => a.encrypt(WRONG)));

    const startedAt = Date.now();
    const replies = await Promise.all(
      ciphertexts.map((password, i) =>
        (i % 2 === 0 ? a : b).post('/sys/login', { account: user.username, password }, { ip: `10.2.0.${i + 1}` }),
      ),
    );
    const endedAt = Date.now();

    expect(replies.filter((r) => r.status >= 500)).toEqual([]);
    const codes = replies.map((r) => r.body.code);
    expect(codes.filter((c) => c === 'BAD_CREDENTIALS')).toHaveLength(5);
    expect(codes.filter((c) => c === 'ACCOUNT_LOCKED')).toHaveLength(15);
    for (const r of replies) {
      if (r.body.code === 'ACCOUNT_LOCKED')
        expect({ status: r.status, body: r.body }).toEqual({ status: 423, body: ACCOUNT_LOCKED });
      else expect({ status: r.status, message: r.body.message }).toEqual({ status: 401, message: '用户名或密码错误' });
    }

    const [rows] = await db.query<any[]>(
      'SELECT status, COUNT(*) AS n FROM sys_login_log WHERE user_id = ? GROUP BY status',
      [user.id],
    );
    const byStatus = Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
    expect(byStatus).toEqual({ passwrong: 5, locked: 15 });
    const [[row]] = await db.query<any[]>('SELECT locked, unlock_time FROM sys_user WHERE id = ?', [user.id]);
    expect(Number(row.locked)).toBe(1);
    expect(row.unlock_time).not.toBeNull();
    // unlock_time = now + lockMinutes (60), on the instances' real clock (UTC).
    // Read as text: DATETIME holds no zone, and this connection's driver would take it as local time.
    const [[text]] = await db.query<any[]>('SELECT CAST(unlock_time AS CHAR) AS t FROM sys_user WHERE id = ?', [
      user.id,
    ]);
    const unlockAt = Date.parse(`${String(text.t).replace(' ', 'T')}Z`);
    expect(unlockAt).toBeGreaterThanOrEqual(startedAt + 60 * 60_000 - 1000);
    expect(unlockAt).toBeLessThanOrEqual(endedAt + 60 * 60_000 + 1000);

    // Locked on both instances, even for the right password.
    expect((await b.login(user.username, PASSWORD)).body.code).toBe('ACCOUNT_LOCKED');
    expect((await a.login(user.username, PASSWORD)).body.code).toBe('ACCOUNT_LOCKED');
    for (const node of [a, b]) {
      const res = await node.login(user.username, PASSWORD);
      expect({ node: node.name, status: res.status, body: res.body }).toEqual({
        node: node.name,
        status: 423,
        body: ACCOUNT_LOCKED,
      });
    }
  });

  it('a QR code generated on A is verified on B, once', async () => {
    const user = await createUser(a);
    const token = await a.token(user.username, PASSWORD, '10.3.0.1');
    const generated = await a.post<{ code: string; expiresIn: number }>('/auth/qrcode/generate', {}, { token });
    expect(generated.body).toMatchObject({ success: true, data: { expiresIn: 300 } });
    const { code } = generated.body.data;

    const verified = await b.post('/auth/qrcode/verify', { code }, { ip: '10.3.0.2' });
    expect(verified.body).toMatchObject({ success: true, data: { tempUser: false } });
    const scanned = verified.body.data.accessToken as string;
    expect((await a.post('/sys/me/info', {}, { token: scanned })).body).toMatchObject({
      success: true,
      data: { username: user.username },
    });

    const again = await a.post('/auth/qrcode/verify', { code }, { ip: '10.3.0.2' });
    expect(again.body).toMatchObject({ success: false, code: 'QRCODE_INVALID' });
    expect(again.status).toBe(400);
    expect(again.body).toEqual(QRCODE_INVALID);
  });

  it('a fresh proof made on A holds on B: it lives in the shared session', async () => {
    const user = await createUser(a);
    const token = await a.token(user.username, PASSWORD, '10.3.0.1');
    const generated = await a.post<{ code: string }>('/auth/qrcode/generate', {}, { token });
    const verified = await b.post('/auth/qrcode/verify', { code: generated.body.data.code }, { ip: '10.3.0.2' });
    const scanned = verified.body.data.accessToken as string;
    // A QR login is no fresh proof: its token cannot enrol a second factor on either instance.
    expect((await b.post('/sys/me/mfa/setup', {}, { token: scanned })).body).toMatchObject({
      success: false,
      code: 'REAUTH_REQUIRED',
    });
    const proven = await a.post('/sys/me/reauth', { password: await a.encrypt(PASSWORD) }, { token: scanned });
    expect(proven.body).toMatchObject({ success: true, data: { reauthUntil: expect.any(Number) } });
    expect((await b.post('/sys/me/mfa/setup', {}, { token: scanned })).body).toMatchObject({ success: true });
  });

  it('second factor: enrolled on A and B with one generated key; an mfaToken from A is finished on B, once', async () => {
    await saveLoginStrategy(a, { mfaMode: 1 });
    await waitForStrategy(b, { mfaMode: 1 });
    try {
      const user = await createUser(a);
      const token = await a.token(user.username, PASSWORD, '10.3.1.1');
      // Set up on A, enabled on B: both read the secret under the one key kept in the database.
      const setup = await a.post('/sys/me/mfa/setup', {}, { token });
      expect(setup.body).toMatchObject({ success: true });
      const { secret } = setup.body.data;
      const enrolStep = stepAt(Date.now());
      const enabled = await b.post('/sys/me/mfa/enable', { code: totpCode(secret, enrolStep) }, { token });
      expect(enabled.body).toMatchObject({ success: true });

      const first = await a.login(user.username, PASSWORD, '10.3.1.1');
      expect(first.body.data).toMatchObject({ accessToken: null, mfaRequired: true });
      const { mfaToken } = first.body.data;
      expect(await redis.get(`${backend.prefix}AUTH_MFA:${sha256hex(mfaToken!)}`)).not.toBeNull();
      // The next step: one step of drift is allowed, and the enrolment's step is used already.
      const code = totpCode(secret, enrolStep + 1);
      const done = await b.post('/sys/login/mfa', { mfaToken, code }, { ip: '10.3.1.2' });
      expect(done.body).toMatchObject({ success: true, data: { mfaRequired: false, tempUser: false } });
      expect((await a.post('/sys/me/info', {}, { token: done.body.data.accessToken })).body.data).toMatchObject({
        username: user.username,
        mfaEnabled: true,
      });
      expect((await a.post('/sys/login/mfa', { mfaToken, code })).body.code).toBe('MFA_TOKEN_INVALID');
      // The same code on the other instance with a new mfaToken: a replay.
      const again = await b.login(user.username, PASSWORD, '10.3.1.1');
      expect((await a.post('/sys/login/mfa', { mfaToken: again.body.data.mfaToken, code })).body.code).toBe(
        'MFA_CODE_INVALID',
      );
    } finally {
      await saveLoginStrategy(a, { mfaMode: 0 });
    }
  });

  it('message streams: 20 per user across A and B; one more on A ends the oldest, held by B', async () => {
    const user = await createUser(a);
    const nodes = [b, a, b, a, a];
    const tokens = await Promise.all(nodes.map((node, i) => node.token(user.username, PASSWORD, `10.5.0.${i + 1}`)));
    const clients: SseClient[] = [];
    const openOn = async (node: ServiceNode, token: string) => {
      const client = await SseClient.open(`${node.url}/sys/message/stream`, { 'admin-token': token });
      clients.push(client);
      expect(client.status).toBe(200);
      await waitFor(() => client.raw.includes(': connected'), 'the stream preamble');
      return client;
    };
    try {
      // Five per session, ten on each instance; B holds the oldest.
      const held: SseClient[] = [];
      for (let s = 0; s < 4; s++) for (let i = 0; i < 5; i++) held.push(await openOn(nodes[s], tokens[s]));
      await sleep(600);
      expect(held.some((c) => c.ended)).toBe(false);

      const newest = await openOn(a, tokens[4]);
      await waitFor(() => held[0].ended, "B to end the user's oldest stream", 3000);
      expect(held[0].events.at(-1)).toMatchObject({
        event: 'end',
        data: { code: 'RATE_LIMITED', message: '请求过于频繁,请稍后再试' },
      });
      await sleep(600);
      expect([...held.slice(1), newest].some((c) => c.ended)).toBe(false);

      // The per-session cap counts on both instances too: a sixth of B's first session, opened on A.
      const sixth = await openOn(a, tokens[1]);
      await waitFor(() => held[5].ended, "A to end the session's oldest stream", 3000);
      expect(held[5].events.at(-1)).toMatchObject({ event: 'end', data: { code: 'RATE_LIMITED' } });
      await sleep(600);
      expect([...held.slice(6), newest, sixth].some((c) => c.ended)).toBe(false);
    } finally {
      for (const client of clients) client.disconnect();
    }
  });

  it('own password changes: one at a time and 10 an hour, counted across A and B', async () => {
    const user = await createUser(a);
    const token = await a.token(user.username, PASSWORD, '10.6.0.1');
    const passwords = [PASSWORD, 'Second#2b'];
    const change = async (node: ServiceNode, i: number) =>
      node.post(
        '/sys/me/pass/update',
        {
          oldPass: await node.encrypt(passwords[i % 2]),
          newPass: await node.encrypt(passwords[(i + 1) % 2]),
        },
        { token, ip: '10.6.0.1' },
      );
    // Encrypted beforehand (both share one key), so that the four arrive together.
    const body = { oldPass: await a.encrypt(passwords[0]), newPass: await a.encrypt(passwords[1]) };
    const parallel = (
      await Promise.all([a, b, a, b].map((node) => node.post('/sys/me/pass/update', body, { token, ip: '10.6.0.1' })))
    ).map((r) => r.body.code);
    expect(parallel.filter((c) => c === 'OK')).toHaveLength(1);
    expect(parallel.filter((c) => c === 'RATE_LIMITED').length).toBeGreaterThanOrEqual(1);
    // One that arrived after the change was done is a wrong old password, as in a serial order.
    expect(parallel.every((c) => ['OK', 'RATE_LIMITED', 'OLD_PASSWORD_WRONG'].includes(c))).toBe(true);
    let evaluated = parallel.filter((c) => c !== 'RATE_LIMITED').length;
    for (let i = 1; evaluated < 10; i++, evaluated++) expect((await change(i % 2 ? b : a, i)).body.code).toBe('OK');
    for (const node of [a, b]) {
      const refused = await change(node, 10);
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({ success: false, code: 'RATE_LIMITED' });
    }
  });

  it('a token renewed on A is renewed for B too', async () => {
    const { sessionExpireMinutes } = (await admin(a, '/sys/strategy/login/info')).body.data;
    const validityMs = sessionExpireMinutes * 60_000;
    const user = await createUser(a);
    const token = await a.token(user.username, PASSWORD, '10.4.0.1');
    const key = `${backend.prefix}AUTH_TOKEN:${sha256hex(token)}`;
    const permsKey = `${backend.prefix}AUTH_PERMS:${sha256hex(token)}`;

    // Make renewal due without waiting: 20 s left of a 30-minute validity (< 50%).
    const stored = JSON.parse((await redis.get(key))!);
    const nearEnd = Date.now() + 20_000;
    await redis.set(key, JSON.stringify({ ...stored, expireAt: nearEnd }), {
      expiration: { type: 'PX', value: 20_000 },
    });
    await redis.pExpire(permsKey, 20_000);

    const before = Date.now();
    expect((await a.post('/sys/me/info', {}, { token })).body.success).toBe(true);

    const renewed = JSON.parse((await redis.get(key))!);
    expect(renewed.expireAt).toBeGreaterThanOrEqual(before + validityMs - 1000);
    expect(renewed.expireAt).toBeLessThanOrEqual(Date.now() + validityMs + 1000);
    // Both TTLs reset with it.
    expect(Number(await redis.pTTL(key))).toBeGreaterThan(validityMs - 60_000);
    expect(Number(await redis.pTTL(permsKey))).toBeGreaterThan(validityMs - 60_000);

    // B sees the moved expireAt and accepts the token.
    const onB = await b.post('/sys/me/sessions', { pageNum: 1, pageSize: 10 }, { token });
    expect(onB.body.success).toBe(true);
    const current = onB.body.data.rows.find((r: any) => r.current);
    expect(current).toBeDefined();
    expect(current.expireAt).toBe(renewed.expireAt);
    expect(current.expireAt).toBeGreaterThan(nearEnd + 60_000);
    expect((await b.post('/sys/me/info', {}, { token })).body).toMatchObject({
      success: true,
      data: { username: user.username },
    });
  });

  it('each notification is delivered once, also when both instances retry the same rows', async () => {
    await saveLoginStrategy(a, { sendMsgWhenErrorLogin: 'sms,site', maxFailureTimes: 100 });
    await waitForStrategy(b, { sendMsgWhenErrorLogin: 'sms,site', maxFailureTimes: 100 });
    try {
      const users = [await createUser(a), await createUser(b), await createUser(a)];
      const ids = users.map((u) => u.id);
      const rowsOf = async () =>
        (
          await db.query<any[]>(
            'SELECT id, channel, status, attempts, claimed_by FROM sys_notification WHERE user_id IN (?)',
            [ids],
          )
        )[0];

      // The provider is down at first: every SMS row stays pending for a retry (5 s later),
      // which both instances' pollers then find due at about the same time.
      sms.status = 503;
      const attempts = users.flatMap((user, u) =>
        [0, 1, 2, 3].map((k) => ({ user, node: (u + k) % 2 ? b : a, ip: `10.5.${u}.${k}` })),
      );
      const replies = await Promise.all(attempts.map(({ user, node, ip }) => node.login(user.username, WRONG, ip)));
      expect(replies.map((r) => r.body.code)).toEqual(attempts.map(() => 'BAD_CREDENTIALS'));

      await waitFor(
        async () => {
          const rows = await rowsOf();
          return (
            rows.length === attempts.length * 2 &&
            rows.filter((r) => r.channel === 'site').every((r) => r.status === 'sent') &&
            rows.filter((r) => r.channel === 'sms').every((r) => Number(r.attempts) === 1 && r.claimed_by === null)
          );
        },
        'site messages sent and one failed SMS attempt per row',
        10_000,
        100,
      );
      sms.status = 200;
      await waitFor(
        async () => (await rowsOf()).every((r) => r.status === 'sent'),
        'every SMS sent on retry',
        20_000,
        100,
      );

      const rows = await rowsOf();
      const smsIds = rows
        .filter((r) => r.channel === 'sms')
        .map((r) => r.id)
        .sort();
      const mine = sms.requests
        .map((r) => ({ id: r.body.id, key: r.headers['idempotency-key'], status: r.status }))
        .filter((r) => smsIds.includes(r.id));
      // Exactly two requests per SMS: the refused first attempt and one accepted retry.
      expect(
        mine
          .filter((r) => r.status === 200)
          .map((r) => r.id)
          .sort(),
      ).toEqual(smsIds);
      expect(
        mine
          .filter((r) => r.status === 503)
          .map((r) => r.id)
          .sort(),
      ).toEqual(smsIds);
      expect(mine.every((r) => r.key === r.id)).toBe(true);
      // One site message per site row, across both instances.
      const siteIds = rows
        .filter((r) => r.channel === 'site')
        .map((r) => r.id)
        .sort();
      const [messages] = await db.query<any[]>('SELECT id FROM sys_message WHERE user_id IN (?)', [ids]);
      expect(messages.map((m) => m.id).sort()).toEqual(siteIds);
    } finally {
      sms.status = 200;
      await saveLoginStrategy(a, { sendMsgWhenErrorLogin: '', maxFailureTimes: 5 });
    }
  });

  it('an API key made on A works on B at once; revoked on A, B refuses it within a second', async () => {
    const made = await admin(a, '/sys/apiKey/create', { name: `cluster-${seq++}`, permissions: ['sys:user:list'] });
    expect(made.body).toMatchObject({ success: true });
    const { id, key } = made.body.data;
    const use = (node: ServiceNode) =>
      node.post('/sys/user/list', { pageNum: 1, pageSize: 1 }, { headers: { authorization: `Bearer ${key}` } });
    expect((await use(b)).body).toMatchObject({ success: true });
    expect((await use(a)).body).toMatchObject({ success: true });

    expect((await admin(a, '/sys/apiKey/revoke', { id })).body).toMatchObject({ success: true });
    const revokedAt = Date.now();
    expect((await use(a)).body).toEqual(NOT_LOGGED_IN);
    for (;;) {
      const res = await use(b);
      if (!res.body.success) {
        expect(res.body).toEqual(NOT_LOGGED_IN);
        break;
      }
      if (Date.now() - revokedAt > 1_000) throw new Error('B still accepts a key revoked on A after a second');
      await sleep(20);
    }
    // Only its hash is stored, in the shared database.
    const [rows] = await db.query<any[]>('SELECT key_hash, revoked_time FROM sys_api_key WHERE id = ?', [id]);
    expect(rows[0].key_hash).toBe(sha256hex(key));
    expect(rows[0].revoked_time).not.toBeNull();
  });
});
