import { NotificationService } from '../../src/notification/notification.service';
import { Keys } from '../../src/store/keys';
import { FLOOD_SHEDS, FLOOD_WINDOW_MS } from '../../src/user-account/compare-budget';
import { PasswordHasher } from '../../src/user-account/password-hasher';
import { BACKENDS, mariadbRedis } from '../support/backends';
import { BAD_CREDENTIALS, CAPTCHA_INVALID, failure } from '../support/envelopes';
import { createActiveUser } from '../support/factories';
import { startApp, TestApp } from '../support/test-app';

const METRICS_TOKEN = 'storm-metrics-token-0123456789';
const SERVICE_UNAVAILABLE = failure('SERVICE_UNAVAILABLE', '服务暂时不可用,请稍后再试');
/** How long a stranger's shed answer is held in the shedding tests. */
const HOLD_MS = 1_500;

async function metric(app: TestApp, series: string): Promise<number> {
  const res = await app.app.inject({
    method: 'GET',
    url: '/metrics',
    headers: { authorization: `Bearer ${METRICS_TOKEN}` },
  });
  const line = res.body.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

/** The text of a live captcha, read from the store as only the image shows it to a person. */
async function solvedCaptcha(app: TestApp): Promise<{ imgId: string; imgCode: string }> {
  const { data } = (await app.post('/sys/captcha')).body;
  expect(data).toMatchObject({
    enabled: true,
    imgId: expect.any(String),
    img: expect.stringMatching(/^data:image\/png/),
  });
  return { imgId: data.imgId, imgCode: (await app.store.get(Keys.captcha(data.imgId)))! };
}

async function attackMessages(app: TestApp): Promise<{ title: string; kind: string }[]> {
  await app.app.get(NotificationService).deliverDue();
  const token = await app.adminToken();
  const res = await app.post('/sys/message/list', { pageNum: 1, pageSize: 50 }, { token });
  return (res.body.data.rows as { title: string; kind: string }[]).filter((m) => m.kind === 'login-attack');
}

describe.each(BACKENDS)('login storm on $name', (backend) => {
  describe('shedding (one compare at a time, no wait allowed)', () => {
    let app: TestApp;
    beforeAll(async () => {
      // A slow compare (cost 12) keeps the one compare slot busy while the others arrive.
      app = await startApp(backend, {
        env: {
          BCRYPT_COST: '12',
          BCRYPT_CONCURRENCY: '1',
          LOGIN_QUEUE_MS: '0',
          LOGIN_SHED_HOLD_MS: String(HOLD_MS),
          METRICS_TOKEN,
        },
      });
    });
    afterAll(() => app.close());

    it('answers SERVICE_UNAVAILABLE with Retry-After at once, counts it, and never toward the lock', async () => {
      const user = await createActiveUser(app);
      const shedBefore = await metric(app, 'lps_login_shed_total');
      const replies = await Promise.all(
        Array.from({ length: 8 }, () => app.login(user.username, 'Wrong#pass1', { ip: '10.9.0.1' })),
      );
      const shed = replies.filter((r) => r.status === 503);
      const refused = replies.filter((r) => r.status === 401);
      expect(shed.length + refused.length).toBe(8);
      expect(shed.length).toBeGreaterThan(0);
      for (const r of shed) {
        expect(r.body).toEqual(SERVICE_UNAVAILABLE);
        expect(String(r.headers['retry-after'])).toMatch(/^[1-9]\d*$/);
      }
      for (const r of refused) expect(r.body).toEqual(BAD_CREDENTIALS);
      // Only the compares that ran were logged and counted: the account is not locked (maxFailureTimes 5).
      const logged = await app.db.query('SELECT status FROM sys_login_log WHERE user_id = ? AND status = ?', [
        user.id,
        'passwrong',
      ]);
      expect(logged).toHaveLength(refused.length);
      expect(await metric(app, 'lps_login_shed_total')).toBe(shedBefore + shed.length);
      expect(refused.length).toBeLessThan(5);
      const right = await app.login(user.username, user.password);
      expect(right.body.code).toBe('OK');
    });

    it("in a flood, holds a stranger's 503 for LOGIN_SHED_HOLD_MS; sends a known client's, and any before the flood, at once", async () => {
      // The sheds of the test before are a window ago: no flood yet.
      app.clock.advance(FLOOD_WINDOW_MS);
      const user = await createActiveUser(app);
      expect((await app.login(user.username, user.password, { ip: '10.9.1.1' })).body.code).toBe('OK');
      // The one compare slot stays taken by a flood's attempt until the test lets it end.
      const pool = (app.app.get(PasswordHasher) as any).pool;
      let started!: () => void;
      let finish!: () => void;
      const compareStarted = new Promise<void>((r) => (started = r));
      const compareMayEnd = new Promise<void>((r) => (finish = r));
      jest.spyOn(pool, 'compare').mockImplementationOnce(async () => {
        started();
        await compareMayEnd;
        return { ok: false, ms: 50 };
      });
      const running = app.login('nobody-storm-0', 'Wrong#pass1', { ip: '198.51.100.1' });
      await compareStarted;

      const timed = async (call: Promise<{ status: number; body: unknown; headers: Record<string, unknown> }>) => {
        const from = performance.now();
        const res = await call;
        return { res, ms: performance.now() - from };
      };
      // One shed after another, each answered before the next is sent: the 20th within 10 s makes a flood.
      const beforeFlood = [];
      for (let i = 1; i < FLOOD_SHEDS; i += 1) {
        beforeFlood.push(await timed(app.login(`nobody-storm-${i}`, 'Wrong#pass1', { ip: `198.51.100.${i + 1}` })));
      }
      expect(beforeFlood.map(({ res }) => res.status)).toEqual(Array(FLOOD_SHEDS - 1).fill(503));
      expect(beforeFlood.filter(({ ms }) => ms >= HOLD_MS)).toEqual([]);
      const [known, stranger] = await Promise.all([
        timed(app.login(user.username, user.password, { ip: '10.9.1.1' })),
        timed(app.login('nobody-storm-flood', 'Wrong#pass1', { ip: '198.51.100.99' })),
      ]);
      finish();
      expect((await running).body).toEqual(BAD_CREDENTIALS);
      for (const { res } of [known, stranger]) {
        expect(res.status).toBe(503);
        expect(res.body).toEqual(SERVICE_UNAVAILABLE);
        expect(String(res.headers['retry-after'])).toMatch(/^[1-9]\d*$/);
      }
      expect(known.ms).toBeLessThan(HOLD_MS);
      expect(stranger.ms).toBeGreaterThanOrEqual(HOLD_MS - 5);
    });
  });

  describe('adaptive captcha (captchaUnderAttack)', () => {
    let app: TestApp;
    beforeAll(async () => {
      app = await startApp(backend, { env: { METRICS_TOKEN } });
    });
    afterAll(() => app.close());

    it('is off by default: failures beyond any rate leave the captcha off', async () => {
      expect(
        (await app.post('/sys/strategy/login/info', {}, { token: await app.adminToken() })).body.data,
      ).toMatchObject({ captchaUnderAttack: false, attackFailuresPerMinute: 300 });
      await app.saveLoginStrategy({ attackFailuresPerMinute: 2 });
      for (let i = 0; i < 3; i += 1)
        expect((await app.login(`nobody${i}`, 'Wrong#pass1')).body).toEqual(BAD_CREDENTIALS);
      expect((await app.post('/sys/captcha')).body.data).toEqual({ enabled: false, imgId: null, img: null });
    });

    it('asks every login for a captcha once failures reach the rate, until 5 calm minutes have passed', async () => {
      app.clock.advanceMinutes(1);
      await app.saveLoginStrategy({ captchaUnderAttack: true, attackFailuresPerMinute: 3 });
      const user = await createActiveUser(app);
      for (let i = 0; i < 2; i += 1) await app.login(`intruder${i}`, 'Wrong#pass1');
      expect((await app.post('/sys/captcha')).body.data.enabled).toBe(false);
      expect(await attackMessages(app)).toEqual([]);

      await app.login('intruder2', 'Wrong#pass1');
      expect((await app.post('/sys/captcha')).body.data.enabled).toBe(true);
      expect(await metric(app, 'lps_login_under_attack')).toBe(1);
      expect(await metric(app, 'lps_login_attack_changes_total{edge="start"}')).toBe(1);
      expect(await attackMessages(app)).toEqual([expect.objectContaining({ title: '登录遭受攻击,已启用验证码' })]);

      // The right password without a captcha is refused; with one it logs in.
      expect((await app.login(user.username, user.password)).body).toEqual(CAPTCHA_INVALID);
      const captcha = await solvedCaptcha(app);
      const res = await app.post('/sys/login', {
        account: user.username,
        password: await app.encrypt(user.password),
        ...captcha,
      });
      expect(res.body.code).toBe('OK');

      // Four minutes later (a refusal then, but below the rate): still on.
      app.clock.advanceMinutes(4);
      expect((await app.login(user.username, user.password)).body).toEqual(CAPTCHA_INVALID);
      expect((await app.post('/sys/captcha')).body.data.enabled).toBe(true);
      // Five minutes after the last failure at the rate: off, announced once.
      app.clock.advanceMinutes(1);
      app.clock.advance(1);
      expect((await app.post('/sys/captcha')).body.data).toEqual({ enabled: false, imgId: null, img: null });
      expect((await app.login(user.username, user.password)).body.code).toBe('OK');
      expect(await metric(app, 'lps_login_under_attack')).toBe(0);
      expect(await metric(app, 'lps_login_attack_changes_total{edge="end"}')).toBe(1);
      expect((await attackMessages(app)).map((m) => m.title).sort()).toEqual(
        ['登录攻击已结束', '登录遭受攻击,已启用验证码'].sort(),
      );
    });

    it('counts in the 等保 baseline', async () => {
      const res = await app.post('/sys/compliance/controls', {}, { token: await app.adminToken() });
      expect(JSON.stringify(res.body.data)).toContain('captchaUnderAttack');
    });
  });
});

describe('adaptive captcha on two instances sharing MariaDB + Redis', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    a = await startApp(mariadbRedis);
    b = await startApp(mariadbRedis, { provisioned: a.provisioned, clock: a.clock });
  });
  afterAll(async () => {
    await b.close();
    await a.close();
  });

  it('adds the failures of both to one rate; both ask for the captcha, and stop together', async () => {
    await a.saveLoginStrategy({ captchaUnderAttack: true, attackFailuresPerMinute: 4 });
    await a.login('ghost1', 'Wrong#pass1');
    await b.login('ghost2', 'Wrong#pass1');
    await a.login('ghost3', 'Wrong#pass1');
    expect((await b.post('/sys/captcha')).body.data.enabled).toBe(false);
    await b.login('ghost4', 'Wrong#pass1');
    expect((await a.post('/sys/captcha')).body.data.enabled).toBe(true);
    expect((await b.post('/sys/captcha')).body.data.enabled).toBe(true);
    a.clock.advanceMinutes(5);
    a.clock.advance(1);
    expect((await b.post('/sys/captcha')).body.data.enabled).toBe(false);
    expect((await a.post('/sys/captcha')).body.data.enabled).toBe(false);
    // One start and one end message for the administrator, whichever instance saw each edge (and
    // whichever instance's outbox worker delivers it: both are drained).
    await b.app.get(NotificationService).deliverDue();
    expect((await attackMessages(a)).length).toBe(2);
  });
});
