import { BACKENDS } from '../support/backends';
import { failure, OK_NO_DATA, RATE_LIMITED } from '../support/envelopes';
import { createUser, TestUser } from '../support/factories';
import { saveSettings } from '../support/settings';
import { startApp, TestApp } from '../support/test-app';

const HOUR = 3_600_000;

/**
 * At most one /sys/me/pass/update of a user runs at
 * a time (a second one answers RATE_LIMITED at once, it does not wait), and at most 10 per user and
 * hour are evaluated; the rest answer RATE_LIMITED without any password compare, so nothing is
 * logged or counted for them.
 */
describe.each(BACKENDS)('pacing of own password changes on $name', (backend) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp(backend);
  });
  afterAll(() => app.close());
  afterEach(() => saveSettings(app));

  const change = async (token: string, oldPass: string, newPass: string, headers: Record<string, string> = {}) =>
    app.post(
      '/sys/me/pass/update',
      { oldPass: await app.encrypt(oldPass), newPass: await app.encrypt(newPass) },
      { token, headers },
    );
  const passchangeRows = async (user: TestUser) =>
    (await app.logRows(user.username)).filter((r) => r.login_type === 'passchange');

  it('of parallel changes of one user one runs; the others answer RATE_LIMITED at once, and none counts as a wrong password', async () => {
    // Each change compares against the last 24 passwords too: the work a caller could multiply.
    await app.saveUserStrategy({ passwordHistoryCount: 24 });
    const user = await createUser(app);
    const token = await app.token(user.username, user.password);
    const body = { oldPass: await app.encrypt(user.password), newPass: await app.encrypt('Parallel#1a') };
    const replies = await Promise.all(
      Array.from({ length: 6 }, () => app.post('/sys/me/pass/update', body, { token })),
    );
    expect(replies.filter((r) => r.body.code === 'OK')).toHaveLength(1);
    const refused = replies.filter((r) => r.body.code !== 'OK');
    expect(refused).toHaveLength(5);
    for (const r of refused) {
      expect(r.status).toBe(429);
      expect(r.body).toEqual(RATE_LIMITED);
    }
    expect((await passchangeRows(user)).filter((r) => r.status === 'passwrong')).toHaveLength(0);
    expect((await app.login(user.username, 'Parallel#1a')).body.success).toBe(true);
  });

  it('at most 10 changes per user and hour are evaluated: the 11th is RATE_LIMITED without a compare, other users change on', async () => {
    const user = await createUser(app);
    const token = await app.token(user.username, user.password);
    const passwords = [user.password, 'Second#2b'];
    for (let i = 0; i < 10; i++) {
      const res = await change(token, passwords[i % 2], passwords[(i + 1) % 2]);
      expect({ i, body: res.body }).toEqual({ i, body: OK_NO_DATA });
    }
    const rowsBefore = (await app.logRows(user.username)).length;
    // Right or wrong old password: the same answer, nothing compared, nothing logged.
    const right = await change(token, passwords[0], passwords[1]);
    expect(right.status).toBe(429);
    expect(right.body).toEqual(RATE_LIMITED);
    const wrong = await change(token, 'Wrong#old1', passwords[1], { 'accept-language': 'en' });
    expect(wrong.status).toBe(429);
    expect(wrong.body).toEqual(failure('RATE_LIMITED', 'Too many requests, please try again later'));
    expect(await app.logRows(user.username)).toHaveLength(rowsBefore);
    expect(Boolean((await app.userRow(user.id)).locked)).toBe(false);

    const other = await createUser(app);
    const otherToken = await app.token(other.username, other.password);
    expect((await change(otherToken, other.password, 'Other#3c')).body).toEqual(OK_NO_DATA);

    if (backend.name === 'sqlite+memory') {
      // The window follows the service's clock (Redis counts real time, so only here).
      app.clock.advance(HOUR);
      const again = await app.token(user.username, passwords[0]);
      expect((await change(again, passwords[0], passwords[1])).body).toEqual(OK_NO_DATA);
    }
  });
});
