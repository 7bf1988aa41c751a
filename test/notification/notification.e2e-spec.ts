import { getRepositoryToken } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';

import { MessagePushService } from '../../src/notification/message/message-push.service';
import { NotificationService } from '../../src/notification/notification.service';
import { formatNotificationTime } from '../../src/notification/notification-content';
import { NotificationOutbox } from '../../src/notification/outbox/notification-outbox';
import { PasswordExpiryReminderService } from '../../src/notification/reminder/password-expiry-reminder.service';
import { PasswordReminderEntity } from '../../src/notification/reminder/password-reminder.entity';
import { Backend, BACKENDS, mariadbRedis, Provisioned } from '../support/backends';
import { NOT_LOGGED_IN } from '../support/envelopes';
import { createActiveUser, createUser, TestUser } from '../support/factories';
import { FakeClock } from '../support/fake-clock';
import { LOGIN_DEFAULTS } from '../support/settings';
import { deadSmtp, SmtpSink } from '../support/smtp-sink';
import { SseClient, streamTicket } from '../support/sse-client';
import { listenOnLocalPort, startApp, TestApp } from '../support/test-app';
import { sleep, waitFor } from '../support/wait';
import { WebhookSink } from '../support/webhook-sink';

// ---------------------------------------------------------------- sinks and clients

/** A user without e-mail (and without mobile), with a changed password. */
async function createUserWithoutContacts(app: TestApp): Promise<TestUser> {
  const username = `nomail_${Math.random().toString(36).slice(2, 8)}`;
  const res = await app.admin('/sys/user/create', {
    username,
    name: username,
    password: await app.encrypt('Initial#1a'),
  });
  if (!res.body.success) throw new Error(res.body.message);
  return { id: res.body.data.id, username, password: 'Initial#1a', mobile: '', email: '' };
}

const outboxRows = (app: TestApp, userId: string): Promise<any[]> =>
  app.db.query('SELECT * FROM sys_notification WHERE user_id = ? ORDER BY channel', [userId]);

const deliverDue = (app: TestApp) => app.app.get(NotificationService).deliverDue();

async function messagesOf(app: TestApp, token: string, body: Record<string, unknown> = { pageNum: 1, pageSize: 50 }) {
  const res = await app.post('/sys/message/list', body, { token });
  if (!res.body.success) throw new Error(`message list failed: ${res.body.code}`);
  return res.body.data as { total: number; rows: any[] };
}

/** The user's site messages once there are `count` of them. */
function waitForMessages(app: TestApp, token: string, count: number) {
  return waitFor(async () => {
    const page = await messagesOf(app, token);
    return page.total === count && page;
  }, `${count} site message(s)`);
}

/** The mails to `address` once there is one. */
function waitForMail(sink: SmtpSink, address: string, what = 'the e-mail') {
  return waitFor(() => {
    const mails = sink.to(address);
    return mails.length > 0 && mails;
  }, what);
}

/** The user's outbox rows once `done` holds for them. */
function waitForRows(app: TestApp, userId: string, done: (rows: any[]) => boolean, what: string, timeoutMs?: number) {
  return waitFor(
    async () => {
      const rows = await outboxRows(app, userId);
      return rows.length > 0 && done(rows) && rows;
    },
    what,
    timeoutMs,
  );
}

/** A DATETIME as the driver returns it (mysql2: Date; SQLite: UTC text) → epoch ms. */
function dbTime(value: Date | string): number {
  return value instanceof Date ? value.getTime() : new Date(`${value.replace(' ', 'T')}Z`).getTime();
}

// ---------------------------------------------------------------- per backend

describe.each(BACKENDS)('notifications on $name', (backend: Backend) => {
  let app: TestApp;
  let smtp: SmtpSink;
  let sms: WebhookSink;
  let baseUrl: string;

  beforeAll(async () => {
    smtp = await new SmtpSink().start();
    sms = await new WebhookSink().start();
    app = await startApp(backend, {
      env: {
        SMTP_URL: smtp.url,
        MAIL_FROM: 'Security <security@example.com>',
        SMS_WEBHOOK_URL: sms.url,
        // Notices folded into 10-minute windows, as an operator opts in to.
        LOGIN_NOTICE_WINDOW_MINUTES: '10',
      },
    });
    baseUrl = await listenOnLocalPort(app);
  });
  afterAll(async () => {
    await app.close();
    await smtp.stop();
    await sms.stop();
  });
  afterEach(() => app.saveLoginStrategy({ sendMsgWhenErrorLogin: '', sendMsgWhenErrorIp: '' }));

  it('a wrong password sends the e-mail, SMS and site message with account, IP, time and the abnormal-login hint', async () => {
    const user = await createActiveUser(app);
    await app.saveLoginStrategy({ sendMsgWhenErrorLogin: 'email,sms,site' });
    const at = app.clock.now();
    const res = await app.login(user.username, 'Wrong#pass1', { ip: '10.20.30.40' });
    expect(res.body.code).toBe('BAD_CREDENTIALS');
    const time = formatNotificationTime(at);

    // The outbox rows exist when the login has answered (one per channel).
    const queued = await outboxRows(app, user.id);
    expect(queued.map((r) => r.channel)).toEqual(['email', 'site', 'sms']);
    expect(queued.every((r) => r.kind === 'login-failed')).toBe(true);
    expect(JSON.parse(queued[0].payload)).toMatchObject({
      account: user.username,
      ip: '10.20.30.40',
      time: at.toISOString(),
    });

    const [mail] = await waitForMail(smtp, user.email, 'the e-mail');
    expect(mail.raw).toMatch(/^From: Security <security@example\.com>/m);
    expect(mail.raw).toMatch(/^Content-Type: text\/html/m);
    for (const fact of [user.username, '10.20.30.40', time, '异常登录:密码错误', '尝试登录IP', '尝试登录时间']) {
      expect(mail.text).toContain(fact);
    }

    const sent = await waitFor(() => sms.accepted.find((b) => b.to === user.mobile), 'the SMS webhook');
    expect(sent).toEqual({ id: expect.any(String), to: user.mobile, kind: 'login-failed', text: expect.any(String) });
    for (const fact of [user.username, '10.20.30.40', time, '异常登录:密码错误']) expect(sent.text).toContain(fact);
    const request = sms.requests.find((r) => r.body.id === sent.id)!;
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['idempotency-key']).toBe(sent.id);

    const token = await app.token(user.username, user.password);
    const list = await waitForMessages(app, token, 1);
    expect(list.rows[0]).toEqual({
      id: expect.any(String),
      kind: 'login-failed',
      title: '异常登录提醒',
      content: expect.any(String),
      read: false,
      createTime: expect.any(String),
    });
    for (const fact of [user.username, '10.20.30.40', time, '异常登录:密码错误'])
      expect(list.rows[0].content).toContain(fact);
    // Gives the two alerts different contents: this one is not the unusual-IP text.
    expect(list.rows[0].content).not.toContain('不常用的IP');

    const done = await waitForRows(app, user.id, (rows) => rows.every((r) => r.status === 'sent'), 'all rows sent');
    expect(done.map((r) => Number(r.attempts))).toEqual([1, 1, 1]);
    expect(done.every((r) => r.sent_time && r.claimed_by === null)).toBe(true);
  });

  it('a burst of wrong passwords sends one notice per window; the one that locks always says so, and until when', async () => {
    const user = await createActiveUser(app);
    await app.saveLoginStrategy({ sendMsgWhenErrorLogin: 'email,site', maxFailureTimes: 4, lockMinutes: 30 });
    try {
      const channelsOf = async () => (await outboxRows(app, user.id)).map((r) => `${r.channel}:${r.kind}`);
      // Three wrong passwords in one window: one notice, on each channel.
      for (const attempt of [1, 2, 3])
        expect((await app.login(user.username, `Wrong#pass${attempt}`)).body.code).toBe('BAD_CREDENTIALS');
      expect(await channelsOf()).toEqual(['email:login-failed', 'site:login-failed']);

      // The fourth locks the account: told at once, though the window's notice went out already.
      const at = app.clock.now();
      expect((await app.login(user.username, 'Wrong#pass4')).body.code).toBe('BAD_CREDENTIALS');
      const rows = await outboxRows(app, user.id);
      expect(rows.map((r) => `${r.channel}:${r.kind}`)).toEqual([
        'email:login-failed',
        'email:login-failed',
        'site:login-failed',
        'site:login-failed',
      ]);
      const until = formatNotificationTime(new Date(at.getTime() + 30 * 60_000));
      const mails = await waitFor(() => smtp.to(user.email).length === 2 && smtp.to(user.email), 'both e-mails');
      const locking = mails.find((m) => m.text.includes('已被锁定'))!;
      for (const fact of ['异常登录:密码错误', '账号状态', `因密码错误次数过多已被锁定,${until}自动解锁`])
        expect(locking.text).toContain(fact);
      expect(mails.filter((m) => m.text.includes('已被锁定'))).toHaveLength(1);
      // Every notice is marked as sent by a machine, so that no out-of-office reply answers it.
      for (const mail of mails) expect(mail.raw).toMatch(/^Auto-Submitted: auto-generated\r?$/m);

      // A later window tells of the next wrong password again (after the lock ended).
      await app.admin('/sys/user/unlock', { id: user.id });
      app.clock.advanceMinutes(11);
      await app.login(user.username, 'Wrong#pass5');
      expect(await channelsOf()).toHaveLength(6);
    } finally {
      await app.saveLoginStrategy({
        maxFailureTimes: LOGIN_DEFAULTS.maxFailureTimes,
        lockMinutes: LOGIN_DEFAULTS.lockMinutes,
      });
    }
  });

  it('by default (LOGIN_NOTICE_WINDOW_MINUTES unset) each wrong password is told', async () => {
    const perAttempt = await startApp(backend);
    try {
      const user = await createActiveUser(perAttempt);
      await perAttempt.saveLoginStrategy({ sendMsgWhenErrorLogin: 'site' });
      for (const attempt of [1, 2]) await perAttempt.login(user.username, `Wrong#pass${attempt}`);
      expect(await outboxRows(perAttempt, user.id)).toHaveLength(2);
    } finally {
      await perAttempt.close();
    }
  });

  it('a login from an uncommon IP sends account, login IP, login time and the uncommon-IP hint on the channels of sendMsgWhenErrorIp', async () => {
    const user = await createActiveUser(app);
    await app.saveLoginStrategy({ sendMsgWhenErrorLogin: 'email', sendMsgWhenErrorIp: 'site,sms' });
    // Three successful logins from the usual IP (the factory's login was the first).
    for (const ip of ['10.0.0.1', '10.0.0.1']) await app.token(user.username, user.password, { ip });
    expect(await outboxRows(app, user.id)).toEqual([]);
    const at = app.clock.now();
    const token = await app.token(user.username, user.password, { ip: '172.16.8.8' });
    expect((await outboxRows(app, user.id)).map((r) => `${r.channel}:${r.kind}`)).toEqual([
      'site:unusual-ip',
      'sms:unusual-ip',
    ]);

    const list = await waitForMessages(app, token, 1);
    expect(list.rows[0]).toMatchObject({ kind: 'unusual-ip', title: '非常用IP登录提醒' });
    for (const fact of [user.username, '登录IP', '172.16.8.8', '登录时间', formatNotificationTime(at), '不常用的IP']) {
      expect(list.rows[0].content).toContain(fact);
    }
    // '登录IP' is also inside the wrong-password label '尝试登录IP': the alert names a login here, not an attempt.
    expect(list.rows[0].content).not.toContain('尝试登录');
    expect(list.rows[0].content).not.toContain('密码错误');
    const sent = await waitFor(() => sms.accepted.find((b) => b.to === user.mobile), 'the SMS webhook');
    expect(sent.text).toContain('172.16.8.8');
    for (const fact of [user.username, formatNotificationTime(at), '不常用的IP']) expect(sent.text).toContain(fact);
    // The e-mail channel belongs to sendMsgWhenErrorLogin only.
    expect(smtp.to(user.email)).toEqual([]);
  });

  it('an empty setting sends nothing, and a setting change applies to the next event', async () => {
    const user = await createActiveUser(app);
    await app.login(user.username, 'Wrong#pass1');
    expect(await outboxRows(app, user.id)).toEqual([]);
    await app.saveLoginStrategy({ sendMsgWhenErrorLogin: 'site' });
    await app.login(user.username, 'Wrong#pass1');
    expect((await outboxRows(app, user.id)).map((r) => r.channel)).toEqual(['site']);
  });

  it("a site message reaches the user's open SSE streams within a second, and only that user's", async () => {
    const user = await createActiveUser(app);
    const other = await createActiveUser(app);
    const token = await app.token(user.username, user.password);
    const otherToken = await app.token(other.username, other.password);
    await app.saveLoginStrategy({ sendMsgWhenErrorLogin: 'site' });

    const byTicket = await SseClient.open(`${baseUrl}/sys/message/stream?ticket=${await streamTicket(app, token)}`);
    const byHeader = await SseClient.open(`${baseUrl}/sys/message/stream`, { 'admin-token': token });
    const stranger = await SseClient.open(`${baseUrl}/sys/message/stream`, { 'admin-token': otherToken });
    try {
      expect(byTicket.status).toBe(200);
      expect(byTicket.headers['content-type']).toBe('text/event-stream; charset=utf-8');
      expect(byHeader.status).toBe(200);
      await waitFor(
        () => byTicket.raw.includes(': connected') && byHeader.raw.includes(': connected'),
        'the stream preamble',
      );

      const started = Date.now();
      await app.login(user.username, 'Wrong#pass1', { ip: '10.44.0.1' });
      const event = await byTicket.next((e) => e.event === 'message', 1000);
      expect(Date.now() - started).toBeLessThan(1000);
      expect((await byHeader.next((e) => e.event === 'message', 1000)).data).toEqual(event.data);
      expect(event.data).toMatchObject({ kind: 'login-failed', title: '异常登录提醒', read: false });
      expect(event.data.content).toContain('10.44.0.1');
      const { rows } = await messagesOf(app, token);
      expect(event.id).toBe(rows[0].id);
      expect(event.data.id).toBe(rows[0].id);
      await sleep(100);
      expect(stranger.events).toEqual([]);

      // The heartbeat ends streams whose session has ended and keeps the others alive.
      await app.post('/sys/logout', {}, { token });
      await app.app.get(MessagePushService).heartbeat();
      await waitFor(() => byTicket.ended && byHeader.ended, 'the streams of the logged-out session to end');
      expect(byTicket.events.at(-1)).toMatchObject({
        event: 'end',
        data: { code: 'NOT_LOGGED_IN', message: '未登录或登录已过期' },
      });
      await waitFor(() => stranger.raw.includes(': ping'), 'the heartbeat on the live stream');
      expect(stranger.ended).toBe(false);
    } finally {
      for (const c of [byTicket, byHeader, stranger]) c.disconnect();
    }
  });

  it("a kicked-out session's stream ends with KICKED_OUT and leaves the one KICKED_OUT answer to the next call", async () => {
    const user = await createActiveUser(app);
    const token = await app.token(user.username, user.password);
    await app.saveLoginStrategy({ multiOnline: false });
    try {
      const client = await SseClient.open(`${baseUrl}/sys/message/stream?ticket=${await streamTicket(app, token)}`, {
        'accept-language': 'en',
      });
      try {
        await waitFor(() => client.raw.includes(': connected'), 'the stream preamble');
        await app.token(user.username, user.password, { ip: '10.44.0.9' });
        await app.app.get(MessagePushService).heartbeat();
        await waitFor(() => client.ended, 'the stream of the kicked-out session to end');
        expect(client.events.at(-1)).toMatchObject({
          event: 'end',
          data: { code: 'KICKED_OUT', message: 'The account has logged in elsewhere' },
        });
      } finally {
        client.disconnect();
      }
      expect((await app.post('/sys/me/info', {}, { token })).body.code).toBe('KICKED_OUT');
    } finally {
      await app.saveLoginStrategy({ multiOnline: true });
    }
  });

  it('the stream refuses a missing, unknown or temporary token with the envelope', async () => {
    const none = await SseClient.open(`${baseUrl}/sys/message/stream`);
    expect(none.status).toBe(401);
    await sleep(50);
    expect(JSON.parse(none.raw)).toEqual(NOT_LOGGED_IN);
    const garbage = await SseClient.open(`${baseUrl}/sys/message/stream`, { 'admin-token': 'nope' });
    expect(garbage.status).toBe(401);
    // An initial password with forceUpdatePassword = true gives a temporary token.
    await app.saveUserStrategy({ forceUpdatePassword: true });
    try {
      const fresh = await createUser(app);
      const login = await app.login(fresh.username, fresh.password);
      expect(login.body.data!.tempUser).toBe(true);
      const temp = await SseClient.open(`${baseUrl}/sys/message/stream`, {
        'admin-token': login.body.data!.accessToken,
      });
      expect(temp.status).toBe(403);
      for (const c of [none, garbage, temp]) c.disconnect();
    } finally {
      await app.saveUserStrategy({ forceUpdatePassword: false });
    }
  });

  it("/sys/message/list filters unread and pages; /sys/message/read marks only the caller's own messages", async () => {
    const user = await createActiveUser(app);
    const other = await createActiveUser(app);
    await app.saveLoginStrategy({ sendMsgWhenErrorLogin: 'site' });
    for (let i = 1; i <= 3; i += 1) {
      // A notice window apart (LOGIN_NOTICE_WINDOW_MINUTES, 10 in this suite): each wrong password is told.
      app.clock.advanceMinutes(11);
      await app.login(user.username, 'Wrong#pass1', { ip: `10.55.0.${i}` });
    }
    await app.login(other.username, 'Wrong#pass1');
    await deliverDue(app);
    const token = await app.token(user.username, user.password);
    const otherToken = await app.token(other.username, other.password);
    const all = await waitForMessages(app, token, 3);
    // Newest first.
    expect(all.rows.map((r) => r.content.match(/10\.55\.0\.\d/)![0])).toEqual(['10.55.0.3', '10.55.0.2', '10.55.0.1']);
    const page2 = await messagesOf(app, token, { pageNum: 2, pageSize: 2 });
    expect(page2).toMatchObject({ total: 3, rows: [{ id: all.rows[2].id }] });

    const theirs = (await messagesOf(app, otherToken)).rows[0];
    const read = await app.post(
      '/sys/message/read',
      { ids: [all.rows[0].id, all.rows[1].id, theirs.id, 'no-such-id'] },
      { token },
    );
    expect(read.body).toMatchObject({ success: true, data: null });
    const unread = await messagesOf(app, token, { pageNum: 1, pageSize: 10, unreadOnly: true });
    expect(unread).toMatchObject({ total: 1, rows: [{ id: all.rows[2].id, read: false }] });
    expect((await messagesOf(app, token)).rows.map((r) => r.read)).toEqual([true, true, false]);
    // Someone else's id in the list changed nothing for its owner.
    expect((await messagesOf(app, otherToken)).rows[0].read).toBe(false);

    expect(
      (await app.post('/sys/message/list', { pageNum: 1, pageSize: 10, unreadOnly: 'yes' }, { token })).body.code,
    ).toBe('VALIDATION_FAILED');
    expect((await app.post('/sys/message/read', { ids: 'x' }, { token })).body.code).toBe('VALIDATION_FAILED');
    expect((await app.post('/sys/message/list', { pageNum: 1, pageSize: 10 })).body.code).toBe('NOT_LOGGED_IN');
  });

  it('with the SMTP server down the login still succeeds; the mail goes out with backoff once the server is back', async () => {
    const user = await createActiveUser(app);
    await app.saveLoginStrategy({ sendMsgWhenErrorIp: 'email' });
    for (const ip of ['10.0.0.1', '10.0.0.1']) await app.token(user.username, user.password, { ip });
    await smtp.stop();
    try {
      const res = await app.login(user.username, user.password, { ip: '192.168.66.6' });
      expect(res.body.success).toBe(true);
      const [failed] = await waitForRows(
        app,
        user.id,
        ([row]) => Number(row.attempts) === 1 && row.claimed_by === null,
        'the failed first attempt',
      );
      expect(failed).toMatchObject({ status: 'pending', channel: 'email', kind: 'unusual-ip' });
      expect(failed.last_error).toMatch(/ECONNREFUSED|connect/i);
      // Exponential backoff: the first retry is due 5 s after the failure.
      expect(dbTime(failed.next_attempt_at)).toBe(app.clock.nowMs() + 5000);
    } finally {
      await smtp.start();
    }
    // Not due yet: nothing goes out.
    await deliverDue(app);
    expect(smtp.to(user.email)).toEqual([]);
    app.clock.advance(5000);
    const [mail] = await waitForMail(smtp, user.email, 'the mail after the server came back');
    expect(mail.text).toContain('192.168.66.6');
    expect(mail.text).toContain('不常用的IP');
    const [row] = await waitForRows(app, user.id, ([r]) => r.status === 'sent', 'the row marked sent');
    expect(Number(row.attempts)).toBe(2);
  });

  it('without SMTP_URL and SMS_WEBHOOK_URL those channels record not_configured with the reason; site still works', async () => {
    const bare = await startApp(backend);
    try {
      const user = await createActiveUser(bare);
      await bare.saveLoginStrategy({ sendMsgWhenErrorLogin: 'email,sms,site' });
      expect((await bare.login(user.username, 'Wrong#pass1')).body.code).toBe('BAD_CREDENTIALS');
      const rows = await waitForRows(
        bare,
        user.id,
        (found) => found.length === 3 && found.every((r) => r.status !== 'pending'),
        'final statuses',
      );
      expect(rows.map((r) => [r.channel, r.status, r.last_error])).toEqual([
        ['email', 'not_configured', 'ChannelNotConfiguredError: SMTP_URL is not set'],
        ['site', 'sent', null],
        ['sms', 'not_configured', 'ChannelNotConfiguredError: SMS_WEBHOOK_URL is not set'],
      ]);
      // And the account is still usable.
      expect((await bare.login(user.username, user.password)).body.success).toBe(true);
    } finally {
      await bare.close();
    }
  });

  it('a user without a mailbox or mobile gets failed e-mail and SMS rows with the reason, without retries', async () => {
    const user = await createUserWithoutContacts(app);
    await app.saveLoginStrategy({ sendMsgWhenErrorLogin: 'email,sms' });
    await app.login(user.username, 'Wrong#pass1');
    const rows = await waitForRows(
      app,
      user.id,
      (found) => found.length === 2 && found.every((r) => r.status !== 'pending'),
      'final statuses',
    );
    expect(rows.map((r) => [r.channel, r.status, Number(r.attempts), r.last_error])).toEqual([
      ['email', 'failed', 1, 'PermanentDeliveryError: the user has no e-mail address'],
      ['sms', 'failed', 1, 'PermanentDeliveryError: the user has no mobile number'],
    ]);
  });

  it('a pending notification survives an app restart and is delivered by the new app', async () => {
    const provisioned: Provisioned = await backend.provision();
    const sink = await deadSmtp();
    const env = { SMTP_URL: sink.url };
    let first: TestApp | undefined;
    let second: TestApp | undefined;
    try {
      first = await startApp(backend, { provisioned, env });
      const user = await createActiveUser(first);
      await first.saveLoginStrategy({ sendMsgWhenErrorLogin: 'email' });
      await first.login(user.username, 'Wrong#pass1', { ip: '10.77.0.7' });
      await waitForRows(
        first,
        user.id,
        ([row]) => Number(row.attempts) === 1 && row.claimed_by === null,
        'the failed first attempt',
      );
      const restartAt = first.clock.nowMs() + 60_000;
      await first.close();
      first = undefined;

      await sink.start();
      second = await startApp(backend, { provisioned, env, clock: new FakeClock(restartAt) });
      const [mail] = await waitForMail(sink, user.email, 'the mail after the restart');
      expect(mail.text).toContain('10.77.0.7');
      const [row] = await waitForRows(second, user.id, ([r]) => r.status === 'sent', 'the row marked sent');
      expect(Number(row.attempts)).toBe(2);
    } finally {
      await first?.close();
      await second?.close();
      await sink.stop();
      await provisioned.dispose();
    }
  });

  it('reminds of password expiry once per expiry period (site, and e-mail when the user has one); never when passwordExpireDays = 0', async () => {
    const sink = await new SmtpSink().start();
    const r = await startApp(backend, { env: { SMTP_URL: sink.url } });
    try {
      const reminder = r.app.get(PasswordExpiryReminderService);
      const user = await createActiveUser(r);
      const noMail = await createUserWithoutContacts(r);
      const reminders = async (userId: string) =>
        (await r.db.query('SELECT COUNT(*) AS n FROM sys_password_reminder WHERE user_id = ?', [userId]))[0].n;
      const siteRows = async (userId: string) =>
        r.db.query('SELECT * FROM sys_notification WHERE user_id = ? AND channel = ? ORDER BY create_time', [
          userId,
          'site',
        ]);

      // Never expires: nothing, however late it is.
      await r.saveUserStrategy({ passwordExpireDays: 0, expireNotifyDays: 10 });
      r.clock.advanceDays(85);
      await reminder.run();
      r.clock.advanceDays(400);
      await reminder.run();
      expect(Number(await reminders(user.id))).toBe(0);
      expect(await r.db.query('SELECT * FROM sys_notification WHERE kind = ?', ['password-expiry'])).toEqual([]);

      // 90-day validity, reminder 10 days ahead: at day 85 the user is due.
      r.clock.advanceDays(-400);
      await r.saveUserStrategy({ passwordExpireDays: 90, expireNotifyDays: 10 });
      await reminder.run();
      await reminder.run();
      r.clock.advanceDays(1);
      await reminder.run();
      expect(Number(await reminders(user.id))).toBe(1);
      const rows = await r.db.query('SELECT channel, kind FROM sys_notification WHERE user_id = ? ORDER BY channel', [
        user.id,
      ]);
      expect(rows).toEqual([
        { channel: 'email', kind: 'password-expiry' },
        { channel: 'site', kind: 'password-expiry' },
      ]);
      expect(
        (await r.db.query('SELECT channel FROM sys_notification WHERE user_id = ?', [noMail.id])).map(
          (x: any) => x.channel,
        ),
      ).toEqual(['site']);

      const token = await r.token(user.username, user.password);
      const list = await waitForMessages(r, token, 1);
      expect(list.rows[0]).toMatchObject({ kind: 'password-expiry', title: '密码即将过期' });
      expect(list.rows[0].content).toContain('5天后过期');
      const [mail] = await waitForMail(sink, user.email, 'the reminder mail');
      expect(mail.text).toContain('密码即将过期');
      expect(mail.text).toContain(user.username);

      // A new period starts with a password change; its reminder comes 80 days later, once.
      const changed = await r.post(
        '/sys/me/pass/update',
        {
          oldPass: await r.encrypt(user.password),
          newPass: await r.encrypt('Again#3cc'),
        },
        { token },
      );
      expect(changed.body.success).toBe(true);
      r.clock.advanceDays(79);
      await reminder.run();
      expect(Number(await reminders(user.id))).toBe(1);
      r.clock.advanceDays(1);
      await reminder.run();
      await reminder.run();
      expect(Number(await reminders(user.id))).toBe(2);
      expect(await siteRows(user.id)).toHaveLength(2);
    } finally {
      await r.close();
      await sink.stop();
    }
  });
});

// ---------------------------------------------------------------- cluster

describe('two instances on one MariaDB + Redis', () => {
  let provisioned: Provisioned;
  let a: TestApp;
  let b: TestApp;
  let sms: WebhookSink;
  const clock = new FakeClock();

  beforeAll(async () => {
    sms = await new WebhookSink().start();
    provisioned = await mariadbRedis.provision();
    // One notice per wrong password: these cases race the instances for outbox rows, not for notices.
    const env = { SMS_WEBHOOK_URL: sms.url, LOGIN_NOTICE_WINDOW_MINUTES: '0' };
    a = await startApp(mariadbRedis, { provisioned, env, clock });
    b = await startApp(mariadbRedis, { provisioned, env, clock });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await sms.stop();
    await provisioned?.dispose();
  });

  it('tells a burst of wrong passwords on both instances at once in one notice', async () => {
    const windowed = await mariadbRedis.provision();
    const env = { LOGIN_NOTICE_WINDOW_MINUTES: '10' };
    const c = await startApp(mariadbRedis, { provisioned: windowed, clock, env });
    const d = await startApp(mariadbRedis, { provisioned: windowed, clock, env });
    try {
      await c.saveLoginStrategy({ sendMsgWhenErrorLogin: 'site', maxFailureTimes: 100 });
      const user = await createActiveUser(c);
      await Promise.all([c, d, c, d, c, d].map((app, i) => app.login(user.username, `Wrong#pass${i}`)));
      expect(await c.db.query('SELECT channel FROM sys_notification WHERE user_id = ?', [user.id])).toHaveLength(1);
    } finally {
      await c.close();
      await d.close();
      await windowed.dispose();
    }
  });

  it('delivers each notification exactly once, including retries both instances race for', async () => {
    await a.saveLoginStrategy({ sendMsgWhenErrorLogin: 'sms,site', maxFailureTimes: 100 });
    const users = [await createActiveUser(a), await createActiveUser(a), await createActiveUser(b)];
    // The provider is failing: every SMS stays pending for a retry.
    sms.status = 503;
    let attempts = 0;
    for (let round = 0; round < 4; round += 1) {
      for (const [i, user] of users.entries()) {
        await (i % 2 ? b : a).login(user.username, 'Wrong#pass1', { ip: `10.88.${round}.${i}` });
        attempts += 1;
      }
    }
    const all = async () => (await a.db.query('SELECT * FROM sys_notification')) as any[];
    await waitFor(
      async () => {
        const rows = await all();
        return (
          rows.length === attempts * 2 &&
          rows.filter((r) => r.channel === 'site').every((r) => r.status === 'sent') &&
          rows.filter((r) => r.channel === 'sms').every((r) => Number(r.attempts) === 1 && r.claimed_by === null)
        );
      },
      'site rows sent and SMS rows failed once',
      10_000,
    );

    // The provider recovers; both instances find the same due rows at the same moment.
    sms.status = 200;
    sms.delayMs = 20;
    clock.advance(60_000);
    const claims = [a, b].map((app) => jest.spyOn(app.app.get(NotificationOutbox), 'claim'));
    await Promise.all([a, b, a, b].map((app) => deliverDue(app)));
    await waitFor(async () => (await all()).every((r) => r.status === 'sent'), 'every row sent', 10_000);
    // Both instances went for the same rows: some claims lost, and exactly one won per row.
    const outcomes = await Promise.all(claims.flatMap((spy) => spy.mock.results.map((r) => r.value)));
    expect(outcomes.filter(Boolean)).toHaveLength(users.length * 4);
    expect(outcomes.filter((o) => o === null).length).toBeGreaterThan(0);
    claims.forEach((spy) => spy.mockRestore());

    const smsIds = (await all())
      .filter((r) => r.channel === 'sms')
      .map((r) => r.id)
      .sort();
    expect(sms.accepted.map((m) => m.id).sort()).toEqual(smsIds);
    const siteIds = (await all())
      .filter((r) => r.channel === 'site')
      .map((r) => r.id)
      .sort();
    const messageIds = (await a.db.query('SELECT id FROM sys_message')).map((r: any) => r.id).sort();
    expect(messageIds).toEqual(siteIds);
  });

  it('pushes a site message to an SSE stream held by the other instance', async () => {
    const url = await listenOnLocalPort(b);
    const user = await createActiveUser(a);
    const token = await a.token(user.username, user.password);
    await a.saveLoginStrategy({ sendMsgWhenErrorLogin: 'site' });
    // The ticket comes from one instance and opens the stream on the other.
    const client = await SseClient.open(`${url}/sys/message/stream?ticket=${await streamTicket(a, token)}`);
    try {
      expect(client.status).toBe(200);
      await waitFor(() => client.raw.includes(': connected'), 'the stream preamble');
      await a.login(user.username, 'Wrong#pass1', { ip: '10.99.0.1' });
      const event = await client.next((e) => e.event === 'message', 1000);
      expect(event.data.content).toContain('10.99.0.1');
    } finally {
      client.disconnect();
    }
  });

  it('sends a password-expiry reminder from one instance only when both run the job', async () => {
    await a.saveUserStrategy({ passwordExpireDays: 90, expireNotifyDays: 10 });
    const user = await createActiveUser(a);
    clock.advanceDays(85);
    // The worst interleaving: both instances look before either has written, so neither sees the
    // other's key and both try to insert it. Only the key itself can keep it to one reminder.
    const lookAheads = [a, b].map((app) =>
      jest
        .spyOn(app.app.get<Repository<PasswordReminderEntity>>(getRepositoryToken(PasswordReminderEntity)), 'existsBy')
        .mockResolvedValue(false),
    );
    let ra: number;
    let rb: number;
    try {
      [ra, rb] = await Promise.all([
        a.app.get(PasswordExpiryReminderService).run(),
        b.app.get(PasswordExpiryReminderService).run(),
      ]);
      expect(lookAheads.every((spy) => spy.mock.calls.length > 0)).toBe(true);
    } finally {
      lookAheads.forEach((spy) => spy.mockRestore());
    }
    expect(ra + rb).toBeGreaterThanOrEqual(1);
    // Each due user was reminded by exactly one of the two.
    const [{ n: allKeys }] = await a.db.query('SELECT COUNT(*) AS n FROM sys_password_reminder');
    expect(ra + rb).toBe(Number(allKeys));
    const keys = await a.db.query('SELECT * FROM sys_password_reminder WHERE user_id = ?', [user.id]);
    expect(keys).toHaveLength(1);
    const rows = await a.db.query(
      'SELECT channel FROM sys_notification WHERE user_id = ? AND kind = ? ORDER BY channel',
      [user.id, 'password-expiry'],
    );
    expect(rows.map((r: any) => r.channel)).toEqual(['email', 'site']);
  });
});
