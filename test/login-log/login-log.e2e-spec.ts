import { randomBytes, randomInt } from 'node:crypto';

import { BACKENDS } from '../support/backends';
import { FORBIDDEN, NOT_LOGGED_IN } from '../support/envelopes';
import { createRole, createUser, TestUser } from '../support/factories';
import { namesFields } from '../support/field-errors';
import { epochMs, startApp, TestApp } from '../support/test-app';

const FIREFOX_LINUX = 'Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0';
const SAFARI_IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1';

/** The fields of a login-log row (plus its id and the failure's code). */
const ROW_FIELDS = [
  'id',
  'account',
  'userName',
  'loginType',
  'status',
  'ip',
  'browser',
  'os',
  'loginTime',
  'failureReason',
  'failureCode',
].sort();

const tag = () => randomBytes(3).toString('hex');
/**
 * An IP no other test uses, so that an ip filter sees only this test's attempts. The filter matches
 * a prefix: a last part of three digits is no prefix of another IP's.
 */
const freshIp = () => `10.${randomInt(100, 250)}.${randomInt(0, 255)}.${randomInt(100, 254)}`;
const iso = (d: Date) => d.toISOString();
/** The same instant written with a +08:00 offset. */
const isoPlus8 = (d: Date) => `${new Date(d.getTime() + 8 * 3_600_000).toISOString().slice(0, 23)}+08:00`;

describe.each(BACKENDS)('login log on $name', (backend) => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startApp(backend);
  });
  afterAll(() => app.close());

  const list = (filters: Record<string, unknown> = {}) =>
    app.admin('/sys/loginLog/list', { pageNum: 1, pageSize: 50, ...filters });
  const rowsOf = async (filters: Record<string, unknown>) => {
    const res = await list(filters);
    if (!res.body.success) throw new Error(`list failed: ${res.body.code} ${res.body.message}`);
    return res.body.data.rows as any[];
  };

  it('writes one record per attempt with the status of its outcome and every field', async () => {
    // Created 100 days in the past, so that the expiry step can refuse it at the end without moving
    // the clock past the admin's own password expiry.
    const start = app.clock.now();
    app.clock.advanceDays(-100);
    let user: TestUser;
    try {
      user = await createUser(app, { name: '王五' });
    } finally {
      app.clock.set(start);
    }
    // The expiry step comes last; until then the password counts as fresh.
    await app.saveUserStrategy({ passwordExpireDays: 0 });
    const ip = freshIp();
    const times: Date[] = [];
    const attempt = async (password: string, ua: string) => {
      app.clock.advance(1_000);
      times.push(app.clock.now());
      return app.login(user.username, password, { ip, headers: { 'user-agent': ua } });
    };

    try {
      expect((await attempt(user.password, FIREFOX_LINUX)).body.code).toBe('OK');
      expect((await attempt('Wrong#pass1', SAFARI_IPHONE)).body.code).toBe('BAD_CREDENTIALS');
      await app.admin('/sys/user/lock', { id: user.id });
      expect((await attempt(user.password, FIREFOX_LINUX)).body.code).toBe('ACCOUNT_LOCKED');
      await app.admin('/sys/user/unlock', { id: user.id });
      await app.admin('/sys/user/disable', { id: user.id });
      expect((await attempt(user.password, FIREFOX_LINUX)).body.code).toBe('ACCOUNT_DISABLED');
      await app.admin('/sys/user/enable', { id: user.id });
      await app.saveUserStrategy({ passwordExpireDays: 90 });
      expect((await attempt(user.password, SAFARI_IPHONE)).body.code).toBe('ACCOUNT_EXPIRED');
    } finally {
      await app.saveUserStrategy({ passwordExpireDays: 90 });
    }

    const res = await list({ account: user.username });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, code: 'OK' });
    expect(res.body.data).toEqual({ total: 5, rows: expect.any(Array) });
    const firefox = { browser: expect.stringMatching(/^Firefox 121/), os: expect.stringMatching(/Linux/) };
    const safari = { browser: expect.stringMatching(/^Safari 17/), os: expect.stringMatching(/^iOS/) };
    const base = { id: expect.any(String), account: user.username, userName: '王五', loginType: 'account', ip };
    // Newest first.
    expect(res.body.data.rows).toEqual([
      {
        ...base,
        ...safari,
        status: 'expired',
        loginTime: iso(times[4]),
        failureReason: '您的账户已过期,请联系管理员',
        failureCode: 'ACCOUNT_EXPIRED',
      },
      {
        ...base,
        ...firefox,
        status: 'disabled',
        loginTime: iso(times[3]),
        failureReason: '用户已被禁用',
        failureCode: 'ACCOUNT_DISABLED',
      },
      {
        ...base,
        ...firefox,
        status: 'locked',
        loginTime: iso(times[2]),
        failureReason: '用户已被锁定',
        failureCode: 'ACCOUNT_LOCKED',
      },
      {
        ...base,
        ...safari,
        status: 'passwrong',
        loginTime: iso(times[1]),
        failureReason: '用户名或密码错误',
        failureCode: 'BAD_CREDENTIALS',
      },
      { ...base, ...firefox, status: 'success', loginTime: iso(times[0]), failureReason: null, failureCode: null },
    ]);
    expect(new Set(res.body.data.rows.map((r: any) => r.id)).size).toBe(5);
  });

  it('parses browser and operating system from the User-Agent', async () => {
    const user = await createUser(app);
    await app.token(user.username, user.password, { headers: { 'user-agent': FIREFOX_LINUX } });
    await app.token(user.username, user.password, { headers: { 'user-agent': SAFARI_IPHONE } });
    await app.token(user.username, user.password, { headers: { 'user-agent': '' } });
    const rows = await rowsOf({ account: user.username });
    expect(rows.map((r) => [r.browser, r.os])).toEqual([
      [null, null],
      [expect.stringMatching(/^Safari 17\.1/), expect.stringMatching(/^iOS 17\.1/)],
      [expect.stringMatching(/^Firefox 121\.0/), expect.stringMatching(/^Linux/)],
    ]);
  });

  it('logs an unknown account as typed, without a user name, as passwrong', async () => {
    const ghost = `ghost_${tag()}`;
    app.clock.advance(1_000);
    const at = app.clock.now();
    await app.login(ghost, 'Whatever#1', { headers: { 'user-agent': FIREFOX_LINUX } });
    expect(await rowsOf({ account: ghost })).toEqual([
      {
        id: expect.any(String),
        account: ghost,
        userName: null,
        loginType: 'account',
        status: 'passwrong',
        ip: '10.0.0.1',
        browser: expect.stringMatching(/^Firefox/),
        os: expect.stringMatching(/^Linux/),
        loginTime: iso(at),
        failureReason: '用户名或密码错误',
        failureCode: 'BAD_CREDENTIALS',
      },
    ]);
  });

  it('rows carry only the documented fields: never the user id', async () => {
    const user = await createUser(app);
    await app.token(user.username, user.password);
    await app.login(user.username, 'Wrong#pass1');
    const res = await list({ pageSize: 200 });
    expect(res.body.data.rows.length).toBeGreaterThanOrEqual(2);
    for (const row of res.body.data.rows) expect(Object.keys(row).sort()).toEqual(ROW_FIELDS);
    expect(JSON.stringify(res.body)).not.toContain(user.id);
  });

  it('filters by account, status, loginType and ip, all combined', async () => {
    const user = await createUser(app);
    const [ip1, ip2, ip3] = [freshIp(), freshIp(), freshIp()];
    await app.token(user.username, user.password, { ip: ip1 });
    await app.login(user.username, 'Wrong#pass1', { ip: ip2 });
    await app.token(user.mobile, user.password, { ip: ip1 });
    await app.login(user.email, 'Wrong#pass1', { ip: ip3 });

    const pick = (rows: any[]) => rows.map((r) => `${r.account}|${r.loginType}|${r.status}|${r.ip}`).sort();
    // A mobile or e-mail typed as the account is kept masked, whole only sealed beside it
    // (docs/security.md#personal-data): the user name, a prefix, no longer finds the e-mail that starts with
    // it; the whole mobile or e-mail finds its rows, which the administrator (a holder of sys:user:pii) reads whole.
    expect(pick(await rowsOf({ account: user.username }))).toEqual(
      [`${user.username}|account|passwrong|${ip2}`, `${user.username}|account|success|${ip1}`].sort(),
    );
    expect(pick(await rowsOf({ account: user.mobile }))).toEqual([`${user.mobile}|mobile|success|${ip1}`]);
    expect(pick(await rowsOf({ account: user.email, ip: ip3 }))).toEqual([`${user.email}|email|passwrong|${ip3}`]);
    expect(pick(await rowsOf({ ip: ip1 }))).toEqual(
      [`${user.mobile}|mobile|success|${ip1}`, `${user.username}|account|success|${ip1}`].sort(),
    );
    expect(pick(await rowsOf({ ip: ip1, loginType: 'mobile' }))).toEqual([`${user.mobile}|mobile|success|${ip1}`]);
    expect(pick(await rowsOf({ ip: ip1, loginType: 'email' }))).toEqual([]);
    expect(pick(await rowsOf({ account: user.username, status: 'passwrong', loginType: 'account' }))).toEqual([
      `${user.username}|account|passwrong|${ip2}`,
    ]);
    expect(pick(await rowsOf({ account: user.username, status: 'success', ip: ip2 }))).toEqual([]);

    // A single filter alone: every row matches it, and this test's rows are among them.
    const passwrong = await rowsOf({ status: 'passwrong', pageSize: 200 });
    expect(passwrong.every((r) => r.status === 'passwrong')).toBe(true);
    expect(pick(passwrong)).toEqual(
      expect.arrayContaining([`${user.email}|email|passwrong|${ip3}`, `${user.username}|account|passwrong|${ip2}`]),
    );
    const email = await rowsOf({ loginType: 'email', pageSize: 200 });
    expect(email.every((r) => r.loginType === 'email')).toBe(true);
    expect(pick(email)).toContain(`${user.email}|email|passwrong|${ip3}`);
    // The total counts the filtered rows, not the whole log.
    expect((await list({ ip: ip1 })).body.data.total).toBe(2);
  });

  it('filters by beginTime and endTime, both inclusive, whatever offset the ISO string uses', async () => {
    const user = await createUser(app);
    const times: Date[] = [];
    for (let i = 0; i < 3; i++) {
      app.clock.advance(60_000);
      times.push(app.clock.now());
      await app.login(user.username, i === 1 ? 'Wrong#pass1' : user.password);
    }
    const [t1, t2, t3] = times;
    const at = async (filters: Record<string, unknown>) =>
      (await rowsOf({ account: user.username, ...filters })).map((r) => r.loginTime);

    expect(await at({})).toEqual([iso(t3), iso(t2), iso(t1)]);
    expect(await at({ beginTime: iso(t2) })).toEqual([iso(t3), iso(t2)]);
    expect(await at({ endTime: iso(t2) })).toEqual([iso(t2), iso(t1)]);
    expect(await at({ beginTime: iso(t2), endTime: iso(t2) })).toEqual([iso(t2)]);
    expect(await at({ beginTime: iso(new Date(t2.getTime() + 1)) })).toEqual([iso(t3)]);
    expect(await at({ endTime: iso(new Date(t2.getTime() - 1)) })).toEqual([iso(t1)]);
    expect(await at({ endTime: iso(new Date(t1.getTime() - 1)) })).toEqual([]);
    // The same instants with a +08:00 offset select the same rows.
    expect(await at({ beginTime: isoPlus8(t2), endTime: isoPlus8(t3) })).toEqual([iso(t3), iso(t2)]);
    expect(await at({ beginTime: iso(t1), endTime: iso(t3), status: 'passwrong' })).toEqual([iso(t2)]);
  });

  it('pages newest first, with the filtered total on every page', async () => {
    const user = await createUser(app);
    const ips: string[] = [];
    for (let i = 0; i < 5; i++) {
      app.clock.advance(1_000);
      ips.push(freshIp());
      await app.login(user.username, i % 2 ? 'Wrong#pass1' : user.password, { ip: ips[i] });
    }
    const page = async (pageNum: number) => (await list({ account: user.username, pageNum, pageSize: 2 })).body.data;
    const pages = [await page(1), await page(2), await page(3), await page(4)];
    expect(pages.map((p) => p.total)).toEqual([5, 5, 5, 5]);
    expect(pages.map((p) => p.rows.map((r: any) => r.ip))).toEqual([[ips[4], ips[3]], [ips[2], ips[1]], [ips[0]], []]);
    const times = pages.flatMap((p) => p.rows.map((r: any) => Date.parse(r.loginTime)));
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  it('orders attempts of the same millisecond newest first too', async () => {
    const user = await createUser(app);
    const [first, second] = [freshIp(), freshIp()];
    app.clock.advance(1_000);
    await app.login(user.username, 'Wrong#pass1', { ip: first });
    await app.login(user.username, 'Wrong#pass1', { ip: second });
    expect((await rowsOf({ account: user.username })).map((r) => r.ip)).toEqual([second, first]);
  });

  it('stores login_time in UTC, equal to the clock to the millisecond', async () => {
    const user = await createUser(app);
    app.clock.advance(1_234);
    const at = app.clock.now();
    await app.token(user.username, user.password);
    const [row] = await app.db.query('SELECT CAST(login_time AS CHAR) AS t FROM sys_login_log WHERE account = ?', [
      user.username,
    ]);
    // DATETIME(3) holds no zone: the stored wall-clock text must be the UTC one.
    expect(String(row.t).slice(0, 23)).toBe(iso(at).replace('T', ' ').slice(0, 23));
    const [listed] = await rowsOf({ account: user.username });
    expect(Date.parse(listed.loginTime)).toBe(at.getTime());
    const [raw] = await app.logRows(user.username);
    const stored = epochMs(raw.login_time);
    expect(stored).toBe(at.getTime());
  });

  it('needs sys:loginLog:list', async () => {
    const code = `log_reader_${tag()}`;
    await createRole(app, code, ['sys:loginLog:list']);
    const reader = await createUser(app, { roles: [code] });
    const other = await createUser(app);
    const readerToken = await app.token(reader.username, reader.password);
    const otherToken = await app.token(other.username, other.password);

    const ok = await app.post(
      '/sys/loginLog/list',
      { pageNum: 1, pageSize: 10, account: reader.username },
      { token: readerToken },
    );
    expect(ok.body).toMatchObject({ success: true, data: { total: 1 } });
    const refused = await app.post('/sys/loginLog/list', { pageNum: 1, pageSize: 10 }, { token: otherToken });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual(FORBIDDEN);
    const anonymous = await app.post('/sys/loginLog/list', { pageNum: 1, pageSize: 10 });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.code).toBe('NOT_LOGGED_IN');
    expect(anonymous.body).toEqual(NOT_LOGGED_IN);
  });

  it('defaults the paging when omitted', async () => {
    const res = await app.admin('/sys/loginLog/list', {});
    expect(res.body.success).toBe(true);
    expect(res.body.data.rows.length).toBeLessThanOrEqual(10);
    expect(res.body.data.total).toBeGreaterThanOrEqual(res.body.data.rows.length);
  });

  it.each([
    ['an unknown status', { status: 'foo' }],
    ['an unknown login type', { loginType: 'fax' }],
    ['a page size over the limit', { pageSize: 10000 }],
    ['page number 0', { pageNum: 0 }],
    ['a non-numeric page size', { pageSize: 'ten' }],
    ['a beginTime that is not ISO 8601', { beginTime: 'yesterday' }],
    ['an endTime that is not ISO 8601', { endTime: 'tomorrow' }],
    ['a numeric account', { account: 42 }],
    ['an unknown field', { userId: 'x' }],
  ])('refuses %s with VALIDATION_FAILED', async (_name, filters) => {
    const res = await app.admin('/sys/loginLog/list', { pageNum: 1, pageSize: 10, ...filters });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      success: false,
      code: 'VALIDATION_FAILED',
      data: namesFields(Object.keys(filters)[0]),
    });
  });
});
