import { SchedulerRegistry } from '@nestjs/schedule';

import { MessagePushService } from '../../src/notification/message/message-push.service';
import { BACKENDS } from '../support/backends';
import { NOT_LOGGED_IN } from '../support/envelopes';
import { createActiveUser, TestUser } from '../support/factories';
import { SseClient, streamTicket } from '../support/sse-client';
import { listenOnLocalPort, sha256hex, startApp, TestApp } from '../support/test-app';
import { sleep, waitFor } from '../support/wait';

/** The name of MessagePushService's periodic session check. */
const SESSION_CHECK = 'message-stream-session-check';

/**
 * An open GET /sys/message/stream ends within a second of its session ending, whatever ended it; a
 * browser opens it with a one-time 30-second ticket instead of putting its token in the URL, and
 * `?token=` is no longer accepted.
 */
describe.each(BACKENDS)('message stream sessions and tickets on $name', (backend) => {
  let app: TestApp;
  let base: string;
  const clients: SseClient[] = [];

  beforeAll(async () => {
    app = await startApp(backend);
    base = await listenOnLocalPort(app);
  });
  afterEach(() => {
    for (const c of clients.splice(0)) c.disconnect();
  });
  afterAll(() => app.close());

  const open = async (query = '', headers: Record<string, string> = {}) => {
    const client = await SseClient.open(`${base}/sys/message/stream${query}`, headers);
    clients.push(client);
    return client;
  };
  /** A refused stream answers the envelope; the body once the server has ended it. */
  const refusal = async (client: SseClient) => {
    await waitFor(() => client.ended, 'the refusal to end');
    return { status: client.status, body: JSON.parse(client.raw) };
  };
  const connected = (client: SseClient) => waitFor(() => client.raw.includes(': connected'), 'the stream preamble');

  describe('an open stream ends within a second of its session', () => {
    let user: TestUser;
    let token: string;
    beforeEach(async () => {
      user = await createActiveUser(app);
      token = await app.token(user.username, user.password);
    });

    /** Opens one stream by header and one by ticket, runs `end`, and expects both closed with `code` < 1 s later. */
    async function expectEndedBy(end: () => Promise<unknown>, code: 'NOT_LOGGED_IN' | 'KICKED_OUT') {
      const byHeader = await open('', { 'admin-token': token });
      const byTicket = await open(`?ticket=${await streamTicket(app, token)}`);
      expect([byHeader.status, byTicket.status]).toEqual([200, 200]);
      await connected(byHeader);
      await connected(byTicket);
      // Past a whole check period, so that the next check cannot be the one that was due anyway.
      await sleep(600);
      expect(byHeader.ended || byTicket.ended).toBe(false);

      await end();
      const ended = Date.now();
      await waitFor(() => byHeader.ended && byTicket.ended, 'both streams to end', 3000);
      for (const client of [byHeader, byTicket]) {
        expect(client.endedAt! - ended).toBeLessThan(1000);
        expect(client.events.at(-1)).toMatchObject({ event: 'end', data: { code } });
      }
    }

    it('logout', async () => {
      await expectEndedBy(() => app.post('/sys/logout', {}, { token }), 'NOT_LOGGED_IN');
    });

    it("an administrator's kick-out in Online sessions", async () => {
      await expectEndedBy(async () => {
        expect((await app.admin('/sys/online/kickout', { tokenId: sha256hex(token) })).body.success).toBe(true);
      }, 'NOT_LOGGED_IN');
    });

    it.each(['lock', 'disable', 'resetPass'])("an administrator's %s", async (action) => {
      await expectEndedBy(async () => {
        expect((await app.admin(`/sys/user/${action}`, { id: user.id })).body.success).toBe(true);
      }, 'NOT_LOGGED_IN');
    });

    it('a password change in another session of the user', async () => {
      const other = await app.token(user.username, user.password, { ip: '10.3.3.3' });
      await expectEndedBy(async () => {
        const res = await app.post(
          '/sys/me/pass/update',
          { oldPass: await app.encrypt(user.password), newPass: await app.encrypt('Changed#pass7') },
          { token: other, ip: '10.3.3.3' },
        );
        expect(res.body.success).toBe(true);
      }, 'NOT_LOGGED_IN');
    });

    it('a login elsewhere with multiOnline = false (KICKED_OUT, and the API still answers it once)', async () => {
      await app.saveLoginStrategy({ multiOnline: false });
      try {
        await expectEndedBy(() => app.token(user.username, user.password, { ip: '10.3.3.4' }), 'KICKED_OUT');
        expect((await app.post('/sys/me/info', {}, { token })).body.code).toBe('KICKED_OUT');
      } finally {
        await app.saveLoginStrategy({ multiOnline: true });
      }
    });

    it('a login elsewhere beyond maxSessionsPerUser (KICKED_OUT, as multiOnline = false)', async () => {
      await app.saveLoginStrategy({ multiOnline: true, maxSessionsPerUser: 1 });
      try {
        await expectEndedBy(() => app.token(user.username, user.password, { ip: '10.3.3.5' }), 'KICKED_OUT');
        expect((await app.post('/sys/me/info', {}, { token })).body.code).toBe('KICKED_OUT');
      } finally {
        await app.saveLoginStrategy({ maxSessionsPerUser: 0 });
      }
    });

    it('its sessionMaxHours reached', async () => {
      // A session valid for two hours: only the absolute end can close it after one.
      await app.saveLoginStrategy({ sessionExpireMinutes: 120, sessionMaxHours: 1 });
      try {
        token = await app.token(user.username, user.password);
        await expectEndedBy(async () => {
          app.clock.advance(60 * 60_000);
        }, 'NOT_LOGGED_IN');
      } finally {
        await app.saveLoginStrategy({ sessionExpireMinutes: 30, sessionMaxHours: 0 });
      }
    });

    it("a session ended on the stream's own instance ends it at once, without waiting for a check", async () => {
      // Only the session's own signal can end the streams while the periodic check is stopped.
      const registry = app.app.get(SchedulerRegistry);
      const push = app.app.get(MessagePushService);
      clearInterval(registry.getInterval(SESSION_CHECK));
      registry.deleteInterval(SESSION_CHECK);
      try {
        await app.saveLoginStrategy({ multiOnline: false });
        try {
          await expectEndedBy(async () => {
            token = await app.token(user.username, user.password, { ip: '10.3.3.6' });
          }, 'KICKED_OUT');
        } finally {
          await app.saveLoginStrategy({ multiOnline: true });
        }
        await expectEndedBy(async () => {
          expect((await app.admin('/sys/user/resetPass', { id: user.id })).body.success).toBe(true);
        }, 'NOT_LOGGED_IN');
      } finally {
        registry.addInterval(
          SESSION_CHECK,
          setInterval(() => void push.checkSessions(), 500),
        );
      }
    });

    it('keeps the streams of live sessions open', async () => {
      const other = await createActiveUser(app);
      const otherToken = await app.token(other.username, other.password);
      const live = await open('', { 'admin-token': otherToken });
      await connected(live);
      await expectEndedBy(() => app.post('/sys/logout', {}, { token }), 'NOT_LOGGED_IN');
      await sleep(600);
      expect(live.ended).toBe(false);
    });
  });

  describe('caps: 5 open streams per session, 20 per user', () => {
    const RATE_LIMITED_END = { event: 'end', data: { code: 'RATE_LIMITED', message: '请求过于频繁,请稍后再试' } };
    /** Opens `count` streams of the session one after the other (so their age is their order), each connected. */
    const openStreams = async (token: string, count: number) => {
      const opened: SseClient[] = [];
      for (let i = 0; i < count; i++) {
        const client = await open('', { 'admin-token': token });
        expect(client.status).toBe(200);
        await connected(client);
        opened.push(client);
      }
      return opened;
    };
    const loginOf = (user: TestUser, i: number) => app.token(user.username, user.password, { ip: `10.61.0.${i + 1}` });

    it('a sixth stream of one session ends the oldest with an end event RATE_LIMITED; the newest still gets messages', async () => {
      const user = await createActiveUser(app);
      const token = await app.token(user.username, user.password);
      const [oldest, ...others] = await openStreams(token, 5);
      await sleep(600);
      expect([oldest, ...others].some((c) => c.ended)).toBe(false);

      const sixth = await open(`?ticket=${await streamTicket(app, token)}`);
      expect(sixth.status).toBe(200);
      await connected(sixth);
      await waitFor(() => oldest.ended, 'the oldest stream to end', 1000);
      expect(oldest.events.at(-1)).toMatchObject(RATE_LIMITED_END);
      await sleep(600);
      expect([...others, sixth].some((c) => c.ended)).toBe(false);
      // The session itself is untouched.
      expect((await app.post('/sys/me/info', {}, { token })).body.success).toBe(true);

      await app.saveLoginStrategy({ sendMsgWhenErrorLogin: 'site' });
      try {
        await app.login(user.username, 'Wrong#pass1', { ip: '10.61.1.1' });
        expect((await sixth.next((e) => e.event === 'message', 3000)).data).toMatchObject({ kind: 'login-failed' });
      } finally {
        await app.saveLoginStrategy({ sendMsgWhenErrorLogin: '' });
      }
    });

    it("the end event speaks the stream's language", async () => {
      const user = await createActiveUser(app);
      const token = await app.token(user.username, user.password);
      const first = await open('?lang=en', { 'admin-token': token });
      await connected(first);
      await openStreams(token, 5);
      await waitFor(() => first.ended, 'the oldest stream to end', 1000);
      expect(first.events.at(-1)).toMatchObject({
        event: 'end',
        data: { code: 'RATE_LIMITED', message: 'Too many requests, please try again later' },
      });
    });

    it("a 21st stream of one user, over five sessions, ends the user's oldest, whichever session holds it", async () => {
      const user = await createActiveUser(app);
      const tokens = await Promise.all([0, 1, 2, 3, 4].map((i) => loginOf(user, i)));
      const opened: SseClient[] = [];
      for (const token of tokens.slice(0, 4)) opened.push(...(await openStreams(token, 5)));
      await sleep(600);
      expect(opened.some((c) => c.ended)).toBe(false);

      const [newest] = await openStreams(tokens[4], 1);
      await waitFor(() => opened[0].ended, "the user's oldest stream to end", 1000);
      expect(opened[0].events.at(-1)).toMatchObject(RATE_LIMITED_END);
      await sleep(600);
      expect([...opened.slice(1), newest].some((c) => c.ended)).toBe(false);

      // Another user is not affected by this one's streams.
      const other = await createActiveUser(app);
      const otherStreams = await openStreams(await app.token(other.username, other.password), 2);
      await sleep(600);
      expect([...opened.slice(1), newest, ...otherStreams].some((c) => c.ended)).toBe(false);
    });

    it('a stream the client closes frees its slot at once', async () => {
      const user = await createActiveUser(app);
      const token = await app.token(user.username, user.password);
      const streams = await openStreams(token, 5);
      streams[3].disconnect();
      streams[4].disconnect();
      // The server sees the sockets close; then two more fit without ending anyone.
      await sleep(200);
      const more = await openStreams(token, 2);
      await sleep(600);
      expect([...streams.slice(0, 3), ...more].some((c) => c.ended)).toBe(false);
      const [sixth] = await openStreams(token, 1);
      await waitFor(() => streams[0].ended, 'the oldest stream to end', 1000);
      expect(streams[0].events.at(-1)).toMatchObject(RATE_LIMITED_END);
      expect(sixth.ended).toBe(false);
    });
  });

  describe('tickets', () => {
    let user: TestUser;
    let token: string;
    beforeAll(async () => {
      user = await createActiveUser(app);
    });
    beforeEach(async () => {
      token = await app.token(user.username, user.password);
    });

    it('a ticket opens one stream, once; stored only by its hash, for 30 s', async () => {
      const ticket = await streamTicket(app, token);
      expect(ticket).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(await app.store.get(`STREAM_TICKET:${ticket}`)).toBeNull();
      const ttl = await app.store.ttl(`STREAM_TICKET:${sha256hex(ticket)}`);
      expect(ttl).toBeGreaterThan(25_000);
      expect(ttl).toBeLessThanOrEqual(30_000);

      const first = await open(`?ticket=${ticket}`);
      expect(first.status).toBe(200);
      await connected(first);
      const again = await open(`?ticket=${ticket}`);
      expect(await refusal(again)).toEqual({ status: 401, body: NOT_LOGGED_IN });
    });

    it('of 10 parallel opens with one ticket exactly one gets the stream', async () => {
      const ticket = await streamTicket(app, token);
      const all = await Promise.all(Array.from({ length: 10 }, () => open(`?ticket=${ticket}`)));
      expect(all.map((c) => c.status).sort()).toEqual([200, ...Array(9).fill(401)]);
      for (const refused of all.filter((c) => c.status === 401))
        expect((await refusal(refused)).body).toEqual(NOT_LOGGED_IN);
    });

    it('a ticket is good for 30 seconds', async () => {
      const fresh = await streamTicket(app, token);
      const stale = await streamTicket(app, token);
      app.clock.advance(29_000);
      expect((await open(`?ticket=${fresh}`)).status).toBe(200);
      app.clock.advance(1_000);
      expect(await refusal(await open(`?ticket=${stale}`))).toEqual({ status: 401, body: NOT_LOGGED_IN });
    });

    it('a ticket of a session that has ended since is refused', async () => {
      const ticket = await streamTicket(app, token);
      await app.post('/sys/logout', {}, { token });
      expect(await refusal(await open(`?ticket=${ticket}`))).toEqual({ status: 401, body: NOT_LOGGED_IN });
    });

    it('the token itself in the URL is no longer accepted; unknown and malformed tickets are NOT_LOGGED_IN', async () => {
      for (const query of [
        `?token=${encodeURIComponent(token)}`,
        '?ticket=nope',
        `?ticket=${'A'.repeat(43)}`,
        '?ticket=a&ticket=b',
        '?ticket=',
      ]) {
        expect({ query, ...(await refusal(await open(query))) }).toEqual({ query, status: 401, body: NOT_LOGGED_IN });
      }
      // The Admin-Token header keeps working.
      expect((await open('', { 'admin-token': token })).status).toBe(200);
    });

    it('needs a formal session: none, or a temporary token, gets no ticket', async () => {
      expect((await app.post('/sys/message/streamTicket')).body).toEqual(NOT_LOGGED_IN);
      await app.saveUserStrategy({ forceUpdatePassword: true });
      try {
        const username = `tmp_${Date.now().toString(36)}`;
        expect(
          (await app.admin('/sys/user/create', { username, name: 'T', password: await app.encrypt('Initial#1a') })).body
            .success,
        ).toBe(true);
        const login = await app.login(username, 'Initial#1a');
        expect(login.body.data!.tempUser).toBe(true);
        const refused = await app.post('/sys/message/streamTicket', {}, { token: login.body.data!.accessToken });
        expect(refused.status).toBe(403);
        expect(refused.body.code).toBe('TEMP_TOKEN_FORBIDDEN');
      } finally {
        await app.saveUserStrategy({ forceUpdatePassword: false });
      }
    });

    it("with bindIp the ticket opens the stream only from the session's IP", async () => {
      await app.saveLoginStrategy({ bindIp: true });
      try {
        const bound = await app.token(user.username, user.password, { ip: '10.8.8.8' });
        const ticket = (await app.post('/sys/message/streamTicket', {}, { token: bound, ip: '10.8.8.8' })).body.data
          .ticket;
        const elsewhere = await open(`?ticket=${ticket}`, { 'x-forwarded-for': '10.8.8.9' });
        expect((await refusal(elsewhere)).body.code).toBe('IP_MISMATCH');
        const ticket2 = (await app.post('/sys/message/streamTicket', {}, { token: bound, ip: '10.8.8.8' })).body.data
          .ticket;
        expect((await open(`?ticket=${ticket2}`, { 'x-forwarded-for': '10.8.8.8' })).status).toBe(200);
      } finally {
        await app.saveLoginStrategy({ bindIp: false });
      }
    });
  });
});
