import { spawnSync } from 'node:child_process';

import { BACKENDS } from '../support/backends';
import { failure, NOT_LOGGED_IN } from '../support/envelopes';
import { createUser } from '../support/factories';
import { startApp, TestApp } from '../support/test-app';
import { waitFor } from '../support/wait';

const TOKEN = 'metrics-token-0123456789abcdef';

/** Prometheus's promtool: PROMTOOL, else on PATH, else none. */
function promtoolPath(): string | null {
  if (process.env.PROMTOOL) return process.env.PROMTOOL;
  const found = spawnSync('sh', ['-c', 'command -v promtool'], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() : null;
}

/** The value of one series in the Prometheus text (0 when absent). */
function valueOf(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

describe.each(BACKENDS)('metrics on $name', (backend) => {
  describe('without METRICS_TOKEN', () => {
    let app: TestApp;
    beforeAll(async () => {
      app = await startApp(backend);
    });
    afterAll(() => app.close());

    it('answers 404 in the envelope', async () => {
      const res = await app.app.inject({
        method: 'GET',
        url: '/metrics',
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ success: false, code: 'NOT_FOUND', data: null });
    });
  });

  describe('with METRICS_TOKEN', () => {
    let app: TestApp;
    beforeAll(async () => {
      app = await startApp(backend, { env: { METRICS_TOKEN: TOKEN } });
    });
    afterAll(() => app.close());

    /** null: no Authorization header at all. */
    const scrape = async (authorization: string | null = `Bearer ${TOKEN}`) =>
      app.app.inject({ method: 'GET', url: '/metrics', headers: authorization === null ? {} : { authorization } });
    const metrics = async () => {
      const res = await scrape();
      expect(res.statusCode).toBe(200);
      return res.body;
    };

    it('wants Authorization: Bearer <METRICS_TOKEN>; anything else is NOT_LOGGED_IN in the envelope', async () => {
      for (const authorization of [
        null,
        'Bearer wrong-token-0123456789abcdef',
        `Basic ${TOKEN}`,
        `Bearer ${TOKEN}x`,
        `Bearer ${TOKEN.slice(0, -1)}`,
        'Bearer ',
      ]) {
        const res = await scrape(authorization);
        expect([authorization, res.statusCode]).toEqual([authorization, 401]);
        expect(res.json()).toEqual(NOT_LOGGED_IN);
      }
      // A login token is no metrics token.
      const res = await app.app.inject({
        method: 'GET',
        url: '/metrics',
        headers: { 'admin-token': await app.adminToken() },
      });
      expect(res.json()).toEqual(NOT_LOGGED_IN);
    });

    it("answers the Prometheus text format with the documented series and the process's default metrics", async () => {
      await app.adminToken();
      const res = await scrape();
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
      for (const name of [
        'lps_login_attempts_total',
        'lps_login_duration_seconds',
        'lps_account_locks_total',
        'lps_sessions_issued_total',
        'lps_notifications_total',
        'lps_http_request_duration_seconds',
        'process_cpu_user_seconds_total',
        'process_resident_memory_bytes',
        'nodejs_eventloop_lag_seconds',
      ]) {
        expect(res.body).toContain(`# TYPE ${name} `);
      }
      expect(res.body).toContain('# TYPE lps_login_duration_seconds histogram');
    });

    it('counts wrong and right logins, sessions, locks by failures and by an administrator, and login durations', async () => {
      await app.saveLoginStrategy({ maxFailureTimes: 2, sendMsgWhenErrorLogin: 'site' });
      const user = await createUser(app);
      const before = await metrics();

      expect((await app.login(user.username, 'Wrong#pass1', { ip: '10.77.66.55' })).body.code).toBe('BAD_CREDENTIALS');
      expect((await app.login(user.username, user.password, { ip: '10.77.66.55' })).body.code).toBe('OK');
      let after = await metrics();
      const delta = (series: string) => valueOf(after, series) - valueOf(before, series);
      expect(delta('lps_login_attempts_total{status="passwrong",login_type="account"}')).toBe(1);
      expect(delta('lps_login_attempts_total{status="success",login_type="account"}')).toBe(1);
      expect(delta('lps_sessions_issued_total{temp="true"}') + delta('lps_sessions_issued_total{temp="false"}')).toBe(
        1,
      );
      expect(delta('lps_login_duration_seconds_count')).toBe(2);

      // The second wrong password in the window locks the account (maxFailureTimes 2).
      await app.login(user.username, 'Wrong#pass2', { ip: '10.77.66.55' });
      after = await metrics();
      // Once: the lock by failures is also audited as user.lock by system, which is no admin lock.
      expect(delta('lps_account_locks_total{reason="failures"}')).toBe(1);
      expect(delta('lps_account_locks_total{reason="admin"}')).toBe(0);
      const audited = await app.admin('/sys/auditLog/list', {
        pageNum: 1,
        pageSize: 10,
        action: 'user.lock',
        target: user.id,
      });
      expect(audited.body.data.rows).toEqual([
        expect.objectContaining({ userId: 'system', detail: expect.objectContaining({ reason: 'failures' }) }),
      ]);
      expect((await app.login(user.username, user.password)).body.code).toBe('ACCOUNT_LOCKED');
      after = await metrics();
      expect(delta('lps_login_attempts_total{status="locked",login_type="account"}')).toBe(1);

      const other = await createUser(app);
      await app.admin('/sys/user/lock', { id: other.id });
      after = await metrics();
      expect(delta('lps_account_locks_total{reason="admin"}')).toBe(1);

      // The wrong passwords were told to the user through the site channel (the outbox delivers them).
      after = await waitFor(async () => {
        const text = await metrics();
        return (
          valueOf(text, 'lps_notifications_total{channel="site",outcome="sent"}') -
            valueOf(before, 'lps_notifications_total{channel="site",outcome="sent"}') >=
            2 && text
        );
      }, 'the site notifications to be counted');
      await app.saveLoginStrategy({ maxFailureTimes: 5, sendMsgWhenErrorLogin: '' });
    });

    it('has every series it knows of at 0 from the start, so that a rate sees the first event', async () => {
      const fresh = await startApp(backend, { env: { METRICS_TOKEN: TOKEN } });
      try {
        const res = await fresh.app.inject({
          method: 'GET',
          url: '/metrics',
          headers: { authorization: `Bearer ${TOKEN}` },
        });
        for (const series of [
          'lps_login_attempts_total{status="passwrong",login_type="account"}',
          'lps_login_attempts_total{status="locked",login_type="mobile"}',
          'lps_login_attempts_total{status="mfawrong",login_type="email"}',
          'lps_account_locks_total{reason="failures"}',
          'lps_account_locks_total{reason="admin"}',
          'lps_sessions_issued_total{temp="true"}',
          'lps_sessions_issued_total{temp="false"}',
          'lps_notifications_total{channel="email",outcome="failed"}',
          'lps_notifications_total{channel="sms",outcome="not_configured"}',
          'lps_notifications_total{channel="site",outcome="sent"}',
        ]) {
          expect([series, res.body.includes(`\n${series} 0\n`)]).toEqual([series, true]);
        }
      } finally {
        await fresh.close();
      }
    });

    it('passes promtool check metrics: no gauge is named like a counter', async () => {
      await app.adminToken();
      const text = await metrics();
      const gauges = [...text.matchAll(/^# TYPE (\w+) gauge$/gm)].map((m) => m[1]);
      expect(gauges.filter((name) => name.endsWith('_total'))).toEqual([]);
      expect(gauges).toContain('nodejs_active_handles');
      const promtool = promtoolPath();
      if (!promtool) {
        console.warn(
          'promtool not found (PATH or PROMTOOL): the Prometheus linter is not run here; .ci/run provides it',
        );
        return;
      }
      const run = spawnSync(promtool, ['check', 'metrics'], { input: text, encoding: 'utf8' });
      expect({ status: run.status, out: `${run.stdout}${run.stderr}`.trim() }).toEqual({ status: 0, out: '' });
    });

    it('times HTTP answers by route pattern and status, never by the raw URL', async () => {
      await app.admin('/sys/loginLog/list', { pageNum: 1, pageSize: 1 });
      await app.app.inject({ method: 'GET', url: '/sys/no-such-path/secret-id-42?q=private' });
      const text = await metrics();
      expect(text).toMatch(
        /lps_http_request_duration_seconds_count\{route="\/sys\/loginLog\/list",method="POST",status="200"\} \d+/,
      );
      expect(text).toMatch(
        /lps_http_request_duration_seconds_count\{route="\(unmatched\)",method="GET",status="404"\} \d+/,
      );
      expect(text).not.toContain('secret-id-42');
      expect(text).not.toContain('private');
    });

    it('carries no user, account or IP anywhere in the output', async () => {
      const user = await createUser(app);
      await app.login(user.username, 'Wrong#pass1', { ip: '10.123.45.67' });
      await app.login(user.mobile, user.password, { ip: '10.123.45.68' });
      const text = await metrics();
      for (const needle of [
        user.username,
        user.id,
        user.mobile,
        user.email,
        '10.123.45.67',
        '10.123.45.68',
        '10.9.9.9',
        '10.77.66.55',
      ]) {
        expect(text).not.toContain(needle);
      }
      expect(text).toContain('lps_login_attempts_total{status="success",login_type="mobile"}');
      // Only these label names exist on the service's own series.
      const labels = new Set(
        [...text.matchAll(/^lps_\w+\{([^}]*)\}/gm)].flatMap((m) => m[1].split(',').map((p) => p.split('=')[0])),
      );
      expect([...labels].sort()).toEqual([
        'channel',
        'edge',
        'le',
        'login_type',
        'method',
        'outcome',
        'reason',
        'route',
        'status',
        'temp',
      ]);
    });
  });

  it('keeps the envelope for an unknown path next to /metrics', async () => {
    const app = await startApp(backend, { env: { METRICS_TOKEN: TOKEN } });
    try {
      // /metrics/… is a service path: with web/dist built it is no console route either (static-console.ts).
      // (A GET of /metricsx is a console route when web/dist is built, so it is asked with POST.)
      for (const [method, url] of [
        ['GET', '/metrics/x'],
        ['POST', '/metricsx'],
        ['POST', '/metrics'],
      ] as const) {
        const res = await app.app.inject({ method, url });
        expect(res.statusCode).toBe(404);
        expect(res.json()).toEqual(failure('NOT_FOUND', expect.any(String) as unknown as string));
      }
    } finally {
      await app.close();
    }
  });
});
