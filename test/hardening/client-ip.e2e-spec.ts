import { BACKENDS } from '../support/backends';
import { createActiveUser, TestUser } from '../support/factories';
import { startApp, TestApp } from '../support/test-app';

/**
 * Behind TRUST_PROXY the client IP is the address the trusted proxies
 * appended to X-Forwarded-For, counted from the right, never what a client wrote at its left; and
 * a value that is not an IP address is never taken (the socket address stands in for it).
 * Fastify's inject connects from 127.0.0.1, the "nearest proxy" here.
 */
describe.each(BACKENDS)('client IP behind proxies on $name', (backend) => {
  let app: TestApp;
  let user: TestUser;

  beforeAll(async () => {
    // The test harness's own setting: TRUST_PROXY=true, one hop.
    app = await startApp(backend);
    user = await createActiveUser(app);
  });
  afterAll(() => app.close());

  /** Logs the user in through `app` with that X-Forwarded-For; the session's IP and the log row's. */
  async function ipsOf(target: TestApp, forwardedFor: string, remoteAddress?: string) {
    const password = await target.encrypt(user.password);
    const res = await target.app.inject({
      method: 'POST',
      url: '/sys/login',
      remoteAddress,
      headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor },
      payload: JSON.stringify({ account: user.username, password }),
    });
    const body = res.json();
    expect(body).toMatchObject({ success: true, code: 'OK' });
    const session = await target.sessionOf(body.data.accessToken);
    const rows = await target.logRows(user.username);
    return { session: session.ip as string, log: rows.at(-1).ip as string };
  }

  it('TRUST_PROXY=true takes the address the nearest proxy appended (right-most), not the client-written left-most one', async () => {
    expect(await ipsOf(app, '6.6.6.6, 10.1.2.3')).toEqual({ session: '10.1.2.3', log: '10.1.2.3' });
    // One entry, as a single proxy sends it: that entry.
    expect(await ipsOf(app, '10.1.2.4')).toEqual({ session: '10.1.2.4', log: '10.1.2.4' });
    const list = await app.admin('/sys/loginLog/list', { pageNum: 1, pageSize: 10, account: user.username });
    expect(list.body.data.rows.map((r: any) => r.ip)).not.toContain('6.6.6.6');
  });

  it('never stores a forged entry that is not an IP address: the socket address stands in for it', async () => {
    // An IPv6 zone is free text of any length after '%': 'fe80::1%<anything>' passes net.isIP.
    for (const forged of [
      '<script>alert(1)</script>',
      '6.6.6.6, <img src=x>',
      '10.1.2.3:8080',
      'unknown',
      '',
      `fe80::1%${'a'.repeat(100)}`,
    ]) {
      expect(await ipsOf(app, forged)).toEqual({ session: '127.0.0.1', log: '127.0.0.1' });
    }
    const [{ n }] = await app.db.query(
      "SELECT COUNT(*) AS n FROM sys_login_log WHERE ip LIKE '%<%' OR ip LIKE '%:8080'",
    );
    expect(Number(n)).toBe(0);
  });

  it('IPv6 addresses are kept in one spelling, so that one client is one IP for bindIp, throttling and the unusual-IP rule', async () => {
    expect(await ipsOf(app, '2001:DB8::1')).toEqual({ session: '2001:db8::1', log: '2001:db8::1' });
  });

  it('per-IP throttling cannot be dodged by rotating the left-most X-Forwarded-For entry', async () => {
    const limited = await startApp(backend, { env: { THROTTLE_LOGIN_LIMIT: '3' } });
    try {
      await expectNoDodging(limited);
    } finally {
      await limited.close();
    }
  });

  async function expectNoDodging(target: TestApp) {
    const codes = [];
    for (let i = 1; i <= 5; i++) {
      const res = await target.login('nobody', 'Whatever#1', {
        headers: { 'x-forwarded-for': `198.51.100.${i}, 10.70.0.1` },
      });
      codes.push(res.body.code);
    }
    expect(codes).toEqual(['BAD_CREDENTIALS', 'BAD_CREDENTIALS', 'BAD_CREDENTIALS', 'RATE_LIMITED', 'RATE_LIMITED']);
    // Forged non-addresses count against the proxy's own address, not against a fresh key each time.
    const forged = [];
    for (let i = 1; i <= 4; i++) {
      forged.push((await target.login('nobody', 'Whatever#1', { headers: { 'x-forwarded-for': `x${i}` } })).body.code);
    }
    expect(forged.at(-1)).toBe('RATE_LIMITED');
  }

  it('TRUST_PROXY=2 skips two proxies from the right', async () => {
    const twoHops = await startApp(backend, { env: { TRUST_PROXY: '2' } });
    try {
      user = await createActiveUser(twoHops);
      expect(await ipsOf(twoHops, '6.6.6.6, 203.0.113.5, 10.1.1.1')).toEqual({
        session: '203.0.113.5',
        log: '203.0.113.5',
      });
      // Fewer entries than hops: the left-most there is.
      expect(await ipsOf(twoHops, '203.0.113.6')).toEqual({ session: '203.0.113.6', log: '203.0.113.6' });
    } finally {
      await twoHops.close();
    }
  });

  it('a list of proxy addresses / CIDRs trusts exactly those proxies', async () => {
    const listed = await startApp(backend, { env: { TRUST_PROXY: '127.0.0.1, 10.0.0.0/8' } });
    try {
      user = await createActiveUser(listed);
      expect(await ipsOf(listed, '6.6.6.6, 203.0.113.5, 10.1.1.1')).toEqual({
        session: '203.0.113.5',
        log: '203.0.113.5',
      });
      // Every hop a listed proxy: the left-most address is the client.
      expect(await ipsOf(listed, '6.6.6.6, 10.2.2.2, 10.1.1.1')).toEqual({ session: '6.6.6.6', log: '6.6.6.6' });
      // A peer that is not a listed proxy: its X-Forwarded-For is not believed at all.
      expect(await ipsOf(listed, '6.6.6.6', '192.0.2.9')).toEqual({ session: '192.0.2.9', log: '192.0.2.9' });
    } finally {
      await listed.close();
    }
  });
});
