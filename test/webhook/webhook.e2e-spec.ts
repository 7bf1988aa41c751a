import { Webhook } from 'standardwebhooks';

import { stepAt, totpCode } from '../../src/mfa/totp';
import { NotificationService } from '../../src/notification/notification.service';
import { WebhookChannel } from '../../src/webhook/webhook.channel';
import { WEBHOOK_EVENT_TYPES } from '../../src/webhook/webhook-events';
import { BACKENDS } from '../support/backends';
import { createActiveUser, createRole, createUser } from '../support/factories';
import { fieldErrorsOk } from '../support/field-errors';
import { ADMIN_PASSWORD, epochMs, sha256hex, startApp, TestApp } from '../support/test-app';
import { waitFor } from '../support/wait';
import { SinkRequest, WebhookSink } from '../support/webhook-sink';

/**
 * Webhooks (docs/api.md "Webhooks"): other systems told of logins and account changes by POSTs
 * signed as Standard Webhooks say, through the outbox, on SQLite + memory and MariaDB + Redis.
 * Each event comes from its real action; every delivery is checked the way a receiver would, with
 * standardwebhooks' own verify. The clock is moved for retries, never waited for.
 */
interface Hook {
  id: string;
  secret: string;
  /** Where its receiver listens on the sink (each hook its own path). */
  path: string;
}

const WRONG = 'Wrong#pass1';
let seq = 0;

describe.each(BACKENDS)('webhooks on $name', (backend) => {
  let app: TestApp;
  let sink: WebhookSink;
  /** Subscribed to every event, enabled: the receiver of the event-by-event cases. */
  let all: Hook;
  let adminId: string;
  /** Everything that must never reach a receiver: passwords, tokens, codes, secrets. */
  const secrets = new Set<string>([ADMIN_PASSWORD, WRONG]);
  const sinks: WebhookSink[] = [];

  beforeAll(async () => {
    app = await startApp(backend);
    sink = await newSink();
    all = await createHook(sink, [...WEBHOOK_EVENT_TYPES]);
    adminId = (await app.admin('/sys/me/info')).body.data.id;
  });
  afterAll(async () => {
    await app.close();
    await Promise.all(sinks.map((s) => s.stop()));
  });

  async function newSink(): Promise<WebhookSink> {
    const s = await new WebhookSink().start();
    sinks.push(s);
    return s;
  }

  async function createHook(on: WebhookSink, events: string[], enabled = true): Promise<Hook> {
    seq += 1;
    const path = `/hook/${seq}`;
    const res = await app.admin('/sys/webhook/save', { url: on.at(path), events, enabled });
    expect(res.body).toMatchObject({ success: true, code: 'OK', data: { id: expect.any(String) } });
    const hook = { id: res.body.data.id, secret: res.body.data.secret, path };
    secrets.add(hook.secret);
    return hook;
  }

  /** What the receiver of `hook` got on `on`. */
  const at = (on: WebhookSink, hook: Hook) => on.requests.filter((r) => r.url === hook.path);

  /** The first message of `type` about `userId` that reached `hook`, once it has. */
  function message(hook: Hook, type: string, userId: string | null, on = sink): Promise<SinkRequest> {
    return waitFor(
      () => at(on, hook).find((r) => r.body.type === type && r.body.data.userId === userId),
      `${type} of ${userId} at ${hook.path}`,
    );
  }

  /** Checked as a receiver checks it: standardwebhooks' verify with the secret, the body as it came. */
  function verified(hook: Hook, req: SinkRequest): unknown {
    return new Webhook(hook.secret).verify(req.raw, req.headers as Record<string, string>);
  }

  /** `message`, verified, with its headers checked; answers its body. */
  async function signedMessage(hook: Hook, type: string, userId: string | null, on = sink) {
    const req = await message(hook, type, userId, on);
    expect(verified(hook, req)).toEqual(req.body);
    expect(req.headers).toMatchObject({
      'content-type': 'application/json',
      'webhook-id': expect.stringMatching(/^[0-9a-f-]{36}$/),
      'webhook-timestamp': expect.stringMatching(/^\d{10}$/),
      'webhook-signature': expect.stringMatching(/^v1,[A-Za-z0-9+/]+=*$/),
    });
    expect(req.body).toEqual({ type, timestamp: expect.any(String), data: expect.any(Object) });
    expect(new Date(req.body.timestamp).toISOString()).toBe(req.body.timestamp);
    return req.body;
  }

  const deliveries = (hook: Hook) => app.admin('/sys/webhook/deliveries', { id: hook.id, pageNum: 1, pageSize: 50 });

  const outboxRows = (hook: Hook): Promise<any[]> =>
    app.db.query("SELECT * FROM sys_notification WHERE channel = 'webhook' AND user_id = ?", [hook.id]);

  /** Delivers what the moved clock made due, without waiting for the next poll. */
  const deliverDue = () => app.app.get(NotificationService).deliverDue();

  const byAdmin = () => ({ userId: adminId, username: 'admin', ip: '10.9.9.9' });

  /**
   * The outbox row of the hook's one message once `attempts` tries are recorded and its claim is
   * dropped (so that a retry's time is set before the clock moves).
   */
  const settled = (hook: Hook, attempts: number) =>
    waitFor(async () => {
      const [row] = await outboxRows(hook);
      return row && Number(row.attempts) === attempts && row.claimed_by === null && row;
    }, `try ${attempts} of ${hook.path} recorded`);

  describe('administration', () => {
    it('refuses a URL that is not http(s), carries credentials or is no URL, and unknown events; nothing is saved', async () => {
      const before = (await app.admin('/sys/webhook/list')).body.data;
      const cases: [Record<string, unknown>, string, RegExp][] = [
        [{ url: 'ftp://files.example.internal/x' }, 'url', /http或https/],
        [{ url: 'javascript:alert(1)' }, 'url', /http或https/],
        [{ url: 'not a url' }, 'url', /http或https/],
        [{ url: 'https://user:pass@siem.example.internal/hook' }, 'url', /用户名或密码/],
        [{ url: 'https://token@siem.example.internal/hook' }, 'url', /用户名或密码/],
        [{ url: `https://siem.example.internal/${'x'.repeat(2048)}` }, 'url', /地址不能超过2048个字符/],
        [{ events: ['login.succeeded', 'user.created'] }, 'events', /事件/],
        [{ events: ['webhook.test'] }, 'events', /事件/],
        [{ events: [] }, 'events', /事件/],
        [{ events: 'login.failed' }, 'events', /事件/],
        [{ enabled: 'yes' }, 'enabled', /启用/],
        [{ secret: 'whsec_mine' }, 'secret', /secret/],
      ];
      for (const [change, field, message] of cases) {
        const res = await app.admin('/sys/webhook/save', {
          url: 'https://siem.example.internal/hook',
          events: ['login.failed'],
          enabled: true,
          ...change,
        });
        expect({ change, status: res.status, code: res.body.code }).toEqual({
          change,
          status: 400,
          code: 'VALIDATION_FAILED',
        });
        expect(fieldErrorsOk(res.body.data, field)).toBe(true);
        expect(res.body.message).toMatch(message);
      }
      for (const field of ['url', 'events', 'enabled']) {
        const body: Record<string, unknown> = {
          url: 'https://x.example.internal',
          events: ['login.failed'],
          enabled: true,
        };
        delete body[field];
        const res = await app.admin('/sys/webhook/save', body);
        expect([res.body.code, fieldErrorsOk(res.body.data, field)]).toEqual(['VALIDATION_FAILED', true]);
      }
      const en = await app.post(
        '/sys/webhook/save',
        { url: 'https://a:b@x.example.internal', events: ['login.failed'], enabled: true },
        { token: await app.adminToken(), ip: '10.9.9.9', headers: { 'accept-language': 'en' } },
      );
      expect(en.body.message).toBe('URL: the URL must not contain a user name or password');
      expect((await app.admin('/sys/webhook/list')).body.data).toEqual(before);
    });

    it('accepts any http or https URL, internal addresses included', async () => {
      for (const url of ['http://10.1.2.3:8080/hook', 'https://siem.corp.internal/x?team=sec', 'http://localhost/h']) {
        const res = await app.admin('/sys/webhook/save', { url, events: ['login.failed'], enabled: false });
        expect(res.body.code).toBe('OK');
        expect((await app.admin('/sys/webhook/delete', { id: res.body.data.id })).body.code).toBe('OK');
      }
    });

    it('shows the secret once, at creation: never in the list, an update, the audit log or the table', async () => {
      const created = await app.admin('/sys/webhook/save', {
        url: 'https://siem.example.internal/once',
        events: ['account.locked', 'login.failed', 'account.locked'],
        enabled: true,
      });
      const { id, secret } = created.body.data;
      secrets.add(secret);
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);

      const listed = (await app.admin('/sys/webhook/list')).body.data.find((h: any) => h.id === id);
      // Each event once, in the list's order.
      expect(listed).toEqual({
        id,
        url: 'https://siem.example.internal/once',
        events: ['login.failed', 'account.locked'],
        enabled: true,
        createTime: expect.any(String),
        updateTime: expect.any(String),
      });
      const updated = await app.admin('/sys/webhook/save', {
        id,
        url: 'https://siem.example.internal/twice',
        events: ['login.failed'],
        enabled: false,
      });
      expect(updated.body).toEqual({ success: true, code: 'OK', message: '操作成功', data: { id } });
      expect((await app.admin('/sys/webhook/list')).body.data.find((h: any) => h.id === id)).toMatchObject({
        url: 'https://siem.example.internal/twice',
        events: ['login.failed'],
        enabled: false,
      });

      const [row] = await app.db.query('SELECT secret FROM sys_webhook WHERE id = ?', [id]);
      expect(row.secret).toMatch(/^v1\./);
      expect(row.secret).not.toContain(secret.slice(6));
      const audit = await app.db.query('SELECT action, detail FROM sys_audit_log WHERE target = ? ORDER BY id', [id]);
      expect(audit.map((r: any) => r.action)).toEqual(['webhook.save', 'webhook.save']);
      expect(JSON.parse(audit[1].detail)).toMatchObject({
        old: { url: 'https://siem.example.internal/once', enabled: true },
        new: { url: 'https://siem.example.internal/twice', enabled: false },
      });
      expect(JSON.stringify(audit)).not.toContain(secret.slice(6));

      expect((await app.admin('/sys/webhook/delete', { id })).body.code).toBe('OK');
      expect((await app.admin('/sys/webhook/list')).body.data.find((h: any) => h.id === id)).toBeUndefined();
      const [deleted] = await app.db.query(
        "SELECT detail FROM sys_audit_log WHERE target = ? AND action = 'webhook.delete'",
        [id],
      );
      expect(JSON.parse(deleted.detail)).toEqual({ url: 'https://siem.example.internal/twice' });
    });

    it('answers NOT_FOUND for an unknown webhook on every operation that takes one', async () => {
      const id = '00000000-0000-0000-0000-000000000000';
      const body = { id, url: 'https://x.example.internal', events: ['login.failed'], enabled: true };
      expect((await app.admin('/sys/webhook/save', body)).body.code).toBe('NOT_FOUND');
      expect((await app.admin('/sys/webhook/delete', { id })).body.code).toBe('NOT_FOUND');
      expect((await app.admin('/sys/webhook/test', { id })).body.code).toBe('NOT_FOUND');
      expect((await app.admin('/sys/webhook/deliveries', { id })).body.code).toBe('NOT_FOUND');
    });

    it('needs its codes: a holder of sys:webhook:list lists, but neither saves, tests nor deletes', async () => {
      await createRole(app, 'webhook_viewer', ['sys:webhook:list']);
      const viewer = await createActiveUser(app, { roles: ['webhook_viewer'] });
      const token = await app.token(viewer.username, viewer.password);
      const call = (path: string, body: unknown) => app.post(path, body, { token });
      expect((await call('/sys/webhook/list', {})).body.code).toBe('OK');
      expect((await call('/sys/webhook/deliveries', { id: all.id })).body.code).toBe('OK');
      expect(
        (await call('/sys/webhook/save', { url: 'https://x.example', events: ['login.failed'], enabled: true })).body
          .code,
      ).toBe('FORBIDDEN');
      expect((await call('/sys/webhook/test', { id: all.id })).body.code).toBe('FORBIDDEN');
      expect((await call('/sys/webhook/delete', { id: all.id })).body.code).toBe('FORBIDDEN');
    });
  });

  describe('each event, from its real action, signed', () => {
    it('login.succeeded and login.failed, from the login log', async () => {
      const user = await createActiveUser(app);
      secrets.add(user.password);
      const token = await app.token(user.username, user.password, { ip: '10.4.4.4' });
      secrets.add(token);
      const ok = await waitFor(
        () => at(sink, all).find((r) => r.body.type === 'login.succeeded' && r.body.data.ip === '10.4.4.4'),
        'the login',
      );
      expect(verified(all, ok)).toEqual(ok.body);
      expect(ok.body.data).toMatchObject({
        userId: user.id,
        username: user.username,
        account: user.username,
        loginType: 'account',
        ip: '10.4.4.4',
        browser: expect.stringContaining('Chrome'),
      });

      expect((await app.login(user.mobile, WRONG, { ip: '10.4.4.5' })).body.code).toBe('BAD_CREDENTIALS');
      const failed = await signedMessage(all, 'login.failed', user.id);
      expect(failed.data).toMatchObject({
        username: user.username,
        account: user.mobile,
        loginType: 'mobile',
        ip: '10.4.4.5',
        status: 'passwrong',
        reason: 'BAD_CREDENTIALS',
      });
      // An account nobody holds: told too (a guessing attack shows), without a user.
      expect((await app.login('nobody_here', WRONG, { ip: '10.4.4.6' })).body.code).toBe('BAD_CREDENTIALS');
      const unknown = await waitFor(
        () => at(sink, all).find((r) => r.body.type === 'login.failed' && r.body.data.account === 'nobody_here'),
        'the unknown account',
      );
      expect(unknown.body.data).toMatchObject({ userId: null, username: null, ip: '10.4.4.6' });
    });

    it('account.locked by an administrator, account.unlocked, account.disabled, account.enabled', async () => {
      const user = await createUser(app);
      for (const op of ['lock', 'unlock', 'disable', 'enable']) {
        expect((await app.admin(`/sys/user/${op}`, { id: user.id })).body.code).toBe('OK');
      }
      const locked = await signedMessage(all, 'account.locked', user.id);
      expect(locked.data).toEqual({
        userId: user.id,
        username: user.username,
        reason: 'admin',
        unlockTime: expect.any(String),
        by: byAdmin(),
      });
      expect(Date.parse(locked.data.unlockTime)).toBeGreaterThan(app.clock.nowMs());
      for (const type of ['account.unlocked', 'account.disabled', 'account.enabled']) {
        const body = await signedMessage(all, type, user.id);
        expect(body.data).toMatchObject({ username: user.username, by: byAdmin() });
      }
      expect((await signedMessage(all, 'account.disabled', user.id)).data.reason).toBe('admin');
    });

    it('account.locked by wrong passwords, told as done by the service, with the failures', async () => {
      await app.saveLoginStrategy({ maxFailureTimes: 3 });
      try {
        const user = await createActiveUser(app);
        for (let i = 0; i < 3; i++) {
          expect((await app.login(user.username, WRONG, { ip: '10.4.5.5' })).body.code).toBe('BAD_CREDENTIALS');
        }
        const locked = await signedMessage(all, 'account.locked', user.id);
        expect(locked.data).toMatchObject({
          username: user.username,
          reason: 'failures',
          failures: 3,
          by: { userId: 'system', username: 'system' },
        });
        await waitFor(
          () =>
            at(sink, all).filter((r) => r.body.type === 'login.failed' && r.body.data.userId === user.id).length === 3,
          'the three failures',
        );
        // The locked account refuses the right password too: a failed login of status locked.
        expect((await app.login(user.username, user.password)).body.code).toBe('ACCOUNT_LOCKED');
        await waitFor(
          () => at(sink, all).find((r) => r.body.data.userId === user.id && r.body.data.status === 'locked'),
          'the refusal while locked',
        );
      } finally {
        await app.saveLoginStrategy({ maxFailureTimes: 5 });
      }
    });

    it('account.deleted and password.reset by an administrator', async () => {
      const user = await createUser(app);
      const reset = await app.admin('/sys/user/resetPass', { id: user.id });
      expect(reset.body.code).toBe('OK');
      if (reset.body.data?.password) secrets.add(reset.body.data.password);
      expect((await app.admin('/sys/user/delete', { id: user.id })).body.code).toBe('OK');
      expect((await signedMessage(all, 'password.reset', user.id)).data).toEqual({
        userId: user.id,
        username: user.username,
        by: byAdmin(),
      });
      expect((await signedMessage(all, 'account.deleted', user.id)).data).toEqual({
        userId: user.id,
        username: user.username,
        by: byAdmin(),
      });
    });

    it('password.changed by the user, from where', async () => {
      const user = await createActiveUser(app);
      const body = await signedMessage(all, 'password.changed', user.id);
      expect(body.data).toEqual({ userId: user.id, username: user.username, ip: '10.0.0.1' });
    });

    it('session.ended by logout, by an administrator’s kick-out and by a newer login (one device only)', async () => {
      const user = await createActiveUser(app);
      const first = await app.token(user.username, user.password, { ip: '10.6.6.1' });
      secrets.add(first);
      const kicked = await app.admin('/sys/online/kickout', { tokenId: sha256hex(first) });
      expect(kicked.body.code).toBe('OK');
      await waitFor(
        () =>
          at(sink, all).find(
            (r) =>
              r.body.type === 'session.ended' && r.body.data.reason === 'kickout' && r.body.data.userId === user.id,
          ),
        'the kick-out',
      );
      const kickout = at(sink, all).find(
        (r) => r.body.type === 'session.ended' && r.body.data.reason === 'kickout' && r.body.data.userId === user.id,
      )!;
      expect(verified(all, kickout)).toEqual(kickout.body);
      expect(kickout.body.data).toEqual({
        userId: user.id,
        username: user.username,
        reason: 'kickout',
        ip: '10.6.6.1',
        loginTime: expect.any(String),
        by: { userId: adminId, username: 'admin' },
      });
      // The tokenId an administrator used is the token's hash: no receiver gets it.
      secrets.add(sha256hex(first));

      await app.saveLoginStrategy({ multiOnline: false });
      try {
        const older = await app.token(user.username, user.password, { ip: '10.6.6.2' });
        const newer = await app.token(user.username, user.password, { ip: '10.6.6.3' });
        secrets.add(older).add(newer);
        const replaced = await waitFor(
          () => at(sink, all).find((r) => r.body.data.reason === 'replaced' && r.body.data.userId === user.id),
          'the replaced session',
        );
        expect(replaced.body.data).toMatchObject({ ip: '10.6.6.2', by: null });
        expect((await app.post('/sys/logout', {}, { token: newer })).body.code).toBe('OK');
        const logout = await waitFor(
          () => at(sink, all).find((r) => r.body.data.reason === 'logout' && r.body.data.ip === '10.6.6.3'),
          'the logout',
        );
        expect(verified(all, logout)).toEqual(logout.body);
        expect(logout.body.data).toMatchObject({ userId: user.id, username: user.username, by: null });
      } finally {
        await app.saveLoginStrategy({ multiOnline: true });
      }
    });

    it('mfa.changed when the user enables it and when an administrator resets it', async () => {
      const user = await createActiveUser(app);
      const token = await app.token(user.username, user.password);
      secrets.add(token);
      const setup = await app.post('/sys/me/mfa/setup', {}, { token });
      const secret = setup.body.data.secret;
      secrets.add(secret);
      const code = totpCode(secret, stepAt(app.clock.nowMs()));
      secrets.add(code);
      const enabled = await app.post('/sys/me/mfa/enable', { code }, { token });
      expect(enabled.body.code).toBe('OK');
      for (const c of enabled.body.data.recoveryCodes) secrets.add(c);
      expect((await signedMessage(all, 'mfa.changed', user.id)).data).toEqual({
        userId: user.id,
        username: user.username,
        change: 'enabled',
        ip: '10.0.0.1',
        by: null,
      });
      expect((await app.admin('/sys/user/mfa/reset', { id: user.id })).body.code).toBe('OK');
      const reset = await waitFor(
        () =>
          at(sink, all).find(
            (r) => r.body.type === 'mfa.changed' && r.body.data.change === 'reset' && r.body.data.userId === user.id,
          ),
        'the reset',
      );
      expect(verified(all, reset)).toEqual(reset.body);
      expect(reset.body.data).toMatchObject({ ip: '10.9.9.9', by: { userId: adminId, username: 'admin' } });
    });
  });

  describe('delivery', () => {
    it('a receiver that fails the first try gets the message again with the same id and a fresh signature', async () => {
      const flaky = await newSink();
      const hook = await createHook(flaky, ['account.locked']);
      const user = await createUser(app);
      flaky.queued.push(503);
      expect((await app.admin('/sys/user/lock', { id: user.id })).body.code).toBe('OK');
      await settled(hook, 1);
      expect(flaky.requests).toHaveLength(1);

      // Not before its backoff: the message waits for the clock.
      await deliverDue();
      expect(flaky.requests).toHaveLength(1);
      app.clock.advance(5_000);
      await deliverDue();
      await waitFor(() => flaky.accepted.length === 1, 'the retry');

      const [first, second] = flaky.requests;
      expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
      expect(second.raw).toBe(first.raw);
      expect(Number(second.headers['webhook-timestamp'])).toBeGreaterThan(Number(first.headers['webhook-timestamp']));
      expect(second.headers['webhook-signature']).not.toBe(first.headers['webhook-signature']);
      expect(verified(hook, first)).toEqual(first.body);
      expect(verified(hook, second)).toEqual(second.body);

      const log = (await deliveries(hook)).body.data;
      expect(log).toEqual({
        total: 2,
        rows: [
          {
            id: expect.any(String),
            messageId: first.headers['webhook-id'],
            eventType: 'account.locked',
            attempt: 2,
            time: expect.any(String),
            httpStatus: 200,
            error: null,
            durationMs: expect.any(Number),
            success: true,
          },
          {
            id: expect.any(String),
            messageId: first.headers['webhook-id'],
            eventType: 'account.locked',
            attempt: 1,
            time: expect.any(String),
            httpStatus: 503,
            error: 'HTTP 503',
            durationMs: expect.any(Number),
            success: false,
          },
        ],
      });
      expect(Date.parse(log.rows[0].time) - Date.parse(log.rows[1].time)).toBe(5_000);
      const [row] = await outboxRows(hook);
      expect(row).toMatchObject({ status: 'sent', kind: 'account.locked' });
      expect(Number(row.attempts)).toBe(2);
    });

    it('retries on and on for about a day, then gives the message up', async () => {
      const down = await newSink();
      down.status = 500;
      const hook = await createHook(down, ['account.disabled']);
      const user = await createUser(app);
      expect((await app.admin('/sys/user/disable', { id: user.id })).body.code).toBe('OK');
      const start = app.clock.nowMs();
      try {
        for (let tries = 1; tries <= 8; tries++) {
          const row = await settled(hook, tries);
          if (tries === 8) {
            expect(row.status).toBe('failed');
            break;
          }
          expect(row.status).toBe('pending');
          const wait = epochMs(row.next_attempt_at)! - app.clock.nowMs();
          if (tries === 1) expect(wait).toBeLessThanOrEqual(60_000);
          expect(wait).toBeGreaterThan(0);
          app.clock.advance(wait);
          await deliverDue();
        }
        const elapsed = app.clock.nowMs() - start;
        expect(elapsed).toBeGreaterThan(20 * 3_600_000);
        expect(elapsed).toBeLessThan(30 * 3_600_000);
        expect((await deliveries(hook)).body.data.total).toBe(8);
        expect(new Set(down.requests.map((r) => r.headers['webhook-id'])).size).toBe(1);
      } finally {
        // Back to the time receivers check signatures against, for the cases after this one.
        app.clock.set(start);
        await app.admin('/sys/webhook/delete', { id: hook.id });
      }
    });

    it('a timeout, a refused connection and a redirect count as failures; a redirect is not followed', async () => {
      const slow = await newSink();
      slow.delayMs = 2_000;
      const target = await newSink();
      const moving = await newSink();
      moving.redirectTo = target.at('/elsewhere');
      const dead = await newSink();
      const deadUrl = dead.at('/gone');
      await dead.stop();
      const hooks = [await createHook(slow, ['account.enabled']), await createHook(moving, ['account.enabled'])];
      const refused = await app.admin('/sys/webhook/save', {
        url: deadUrl,
        events: ['account.enabled'],
        enabled: true,
      });
      hooks.push({ id: refused.body.data.id, secret: refused.body.data.secret, path: '/gone' });
      const channel = app.app.get(WebhookChannel);
      channel.timeoutMs = 300;
      try {
        const user = await createUser(app);
        await app.admin('/sys/user/disable', { id: user.id });
        expect((await app.admin('/sys/user/enable', { id: user.id })).body.code).toBe('OK');
        const tries = await Promise.all(
          hooks.map((h) =>
            waitFor(async () => {
              const res = await deliveries(h);
              return res.body.data.total === 1 && res.body.data.rows[0];
            }, `the try of ${h.path}`),
          ),
        );
        expect(tries.map((t: any) => [t.httpStatus, t.error, t.success])).toEqual([
          [null, 'no answer within 0.3 s', false],
          [302, 'HTTP 302', false],
          [null, 'no connection: ECONNREFUSED', false],
        ]);
        expect(target.requests).toEqual([]);
        for (const h of hooks) expect((await outboxRows(h))[0].status).toBe('pending');
      } finally {
        channel.timeoutMs = 10_000;
        for (const h of hooks) await app.admin('/sys/webhook/delete', { id: h.id });
      }
    });

    it('deleting a webhook stops its messages still waiting for a retry', async () => {
      const flaky = await newSink();
      flaky.status = 500;
      const hook = await createHook(flaky, ['account.locked']);
      const user = await createUser(app);
      await app.admin('/sys/user/lock', { id: user.id });
      await settled(hook, 1);
      flaky.status = 200;
      expect((await app.admin('/sys/webhook/delete', { id: hook.id })).body.code).toBe('OK');
      expect(await outboxRows(hook)).toEqual([
        expect.objectContaining({ status: 'failed', last_error: 'the webhook was deleted' }),
      ]);
      app.clock.advance(60_000);
      await deliverDue();
      expect(flaky.requests).toHaveLength(1);
      expect((await deliveries(hook)).body.code).toBe('NOT_FOUND');
      expect(await app.db.query('SELECT id FROM sys_webhook_delivery WHERE webhook_id = ?', [hook.id])).toEqual([]);
    });

    it('sends nothing to a disabled webhook, nor to one not subscribed to the event', async () => {
      const quiet = await newSink();
      const off = await createHook(quiet, [...WEBHOOK_EVENT_TYPES], false);
      const other = await createHook(quiet, ['account.enabled']);
      // Created last: the webhooks are looked at oldest first, so theirs would be queued before this one's.
      const on = await createHook(quiet, ['account.disabled']);
      const user = await createUser(app);
      await app.admin('/sys/user/disable', { id: user.id });
      await signedMessage(on, 'account.disabled', user.id, quiet);
      expect(await outboxRows(off)).toEqual([]);
      expect(await outboxRows(other)).toEqual([]);
      expect(quiet.requests.map((r) => r.url)).toEqual([on.path]);
    });

    it('answers the action at once: a slow receiver holds up nothing, and the answer tells nothing of it', async () => {
      const slow = await newSink();
      slow.delayMs = 1_500;
      const hook = await createHook(slow, ['account.locked']);
      const user = await createUser(app);
      const res = await app.admin('/sys/user/lock', { id: user.id });
      expect(res.body).toEqual({ success: true, code: 'OK', message: '操作成功', data: null });
      expect(slow.accepted).toEqual([]);
      await waitFor(() => slow.accepted.length === 1, 'the slow delivery');
      await app.admin('/sys/webhook/delete', { id: hook.id });
    });

    it('sends a test event through the same path, to a disabled webhook too, and lists it', async () => {
      const tester = await newSink();
      const hook = await createHook(tester, ['login.failed'], false);
      const res = await app.admin('/sys/webhook/test', { id: hook.id });
      expect(res.body).toMatchObject({ code: 'OK', data: { messageId: expect.stringMatching(/^[0-9a-f-]{36}$/) } });
      const body = await signedMessage(hook, 'webhook.test', adminId, tester);
      expect(body.data).toEqual({ userId: adminId, username: 'admin', webhookId: hook.id });
      expect(tester.requests[0].headers['webhook-id']).toBe(res.body.data.messageId);
      await waitFor(async () => (await deliveries(hook)).body.data.total === 1, 'the logged test');
      expect((await deliveries(hook)).body.data.rows[0]).toMatchObject({
        messageId: res.body.data.messageId,
        eventType: 'webhook.test',
        success: true,
      });
    });
  });

  it('no delivery carries a password, token, code, hash or secret', async () => {
    const everything = sinks.flatMap((s) => s.requests);
    expect(everything.length).toBeGreaterThan(20);
    for (const req of everything) {
      const text = `${req.raw} ${JSON.stringify(req.headers)}`;
      for (const secret of secrets) expect(text).not.toContain(secret);
      for (const secret of secrets) expect(text).not.toContain(secret.replace(/^whsec_/, ''));
      expect(text).not.toMatch(/\$2[aby]\$/);
      expect(text).not.toMatch(/"(password|token|accessToken|secret|code|recoveryCodes|hash)"/i);
    }
  });
});
