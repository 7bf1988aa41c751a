import { sqliteMemory } from '../support/backends';
import { ACCOUNT_LOCKED, BAD_CREDENTIALS } from '../support/envelopes';
import { createActiveUser, TestUser } from '../support/factories';
import { startApp, TestApp } from '../support/test-app';

const SAMPLES = 15;
const WARM_UP = 3;
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/**
 * The answer to a login reveals neither whether the account exists nor
 * its state through its text or its timing. BCRYPT_COST=10 so that the compare dominates, as in
 * production; SQLite + memory so that the network does not add noise.
 */
describe('account enumeration through messages and timing (sqlite+memory)', () => {
  let app: TestApp;
  let active: TestUser;
  let locked: TestUser;
  let disabled: TestUser;
  /** Soft-deleted; must answer as an account that never existed. */
  let deleted: TestUser;

  beforeAll(async () => {
    app = await startApp(sqliteMemory, { env: { BCRYPT_COST: '10' } });
    // Wrong passwords must not lock the sampled account halfway through.
    await app.saveLoginStrategy({ maxFailureTimes: 1000 });
    [active, locked, disabled] = [
      await createActiveUser(app),
      await createActiveUser(app),
      await createActiveUser(app),
    ];
    expect((await app.admin('/sys/user/lock', { id: locked.id })).body.success).toBe(true);
    expect((await app.admin('/sys/user/disable', { id: disabled.id })).body.success).toBe(true);
    deleted = await createActiveUser(app);
    expect((await app.admin('/sys/user/delete', { id: deleted.id })).body.success).toBe(true);
  }, 60_000);
  afterAll(() => app.close());

  it('gives an unknown account and a wrong password the same answer, in Chinese and in English', async () => {
    for (const headers of [{}, { 'accept-language': 'en' }] as Record<string, string>[]) {
      const unknown = await app.login('no_such_account', active.password, { headers });
      const wrong = await app.login(active.username, 'Wrong#pass1', { headers });
      expect(unknown.status).toBe(401);
      expect(wrong.status).toBe(unknown.status);
      expect(wrong.body).toEqual(unknown.body);
      expect(unknown.body.code).toBe('BAD_CREDENTIALS');
      // The exact text, in each language.
      expect(unknown.body).toEqual({
        success: false,
        code: 'BAD_CREDENTIALS',
        data: null,
        message: headers['accept-language'] === 'en' ? 'Wrong user name or password' : '用户名或密码错误',
      });
    }
    // Unknown mobile numbers and e-mail addresses too.
    expect((await app.login('13900000000', 'Wrong#pass1')).body).toEqual(
      (await app.login(active.mobile, 'Wrong#pass1')).body,
    );
    expect((await app.login('none@example.com', 'Wrong#pass1')).body).toEqual(
      (await app.login(active.email, 'Wrong#pass1')).body,
    );
    // A deleted account, even with its right password, answers as one that never existed.
    expect(await app.login(deleted.username, deleted.password)).toMatchObject({ status: 401, body: BAD_CREDENTIALS });
    expect((await app.login(deleted.mobile, deleted.password)).body).toEqual(BAD_CREDENTIALS);
    // A disabled account with a wrong password says nothing about being disabled (the lock and password come before the disabled check).
    const disabledWrong = await app.login(disabled.username, 'Wrong#pass1');
    expect(disabledWrong.body.code).toBe('BAD_CREDENTIALS');
    expect(disabledWrong.status).toBe(401);
    expect(disabledWrong.body).toEqual(BAD_CREDENTIALS);
    // A locked account gives the same locked answer to a wrong and to a right password.
    const lockedWrong = await app.login(locked.username, 'Wrong#pass1');
    const lockedRight = await app.login(locked.username, locked.password);
    expect(lockedWrong.status).toBe(423);
    expect(lockedWrong.body).toEqual(ACCOUNT_LOCKED);
    expect(lockedRight.status).toBe(lockedWrong.status);
    expect(lockedRight.body).toEqual(lockedWrong.body);
  });

  it('answers unknown, wrong-password, locked and disabled logins in times within a factor 1.5 of each other', async () => {
    const cipher = (plain: string) => app.encrypt(plain);
    const cases = {
      unknown: {
        account: () => `ghost_${Math.random().toString(36).slice(2, 10)}`,
        password: await cipher(active.password),
        code: 'BAD_CREDENTIALS',
      },
      wrongPassword: { account: () => active.username, password: await cipher('Wrong#pass1'), code: 'BAD_CREDENTIALS' },
      locked: { account: () => locked.username, password: await cipher(locked.password), code: 'ACCOUNT_LOCKED' },
      disabled: {
        account: () => disabled.username,
        password: await cipher(disabled.password),
        code: 'ACCOUNT_DISABLED',
      },
      deleted: { account: () => deleted.username, password: await cipher(deleted.password), code: 'BAD_CREDENTIALS' },
    };
    const times: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
    // Sequential and interleaved, so that a slow moment of the machine hits every case alike.
    for (let round = 0; round < WARM_UP + SAMPLES; round++) {
      for (const [name, c] of Object.entries(cases)) {
        const started = process.hrtime.bigint();
        const res = await app.post('/sys/login', { account: c.account(), password: c.password }, { ip: '10.70.0.1' });
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        expect(res.body.code).toBe(c.code);
        if (round >= WARM_UP) times[name].push(ms);
      }
    }
    const medians = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, Math.round(median(v) * 10) / 10]));
    const values = Object.values(medians);
    const ratio = Math.max(...values) / Math.min(...values);
    if (process.env.SHOW_TIMING)
      process.stderr.write(`login medians (ms): ${JSON.stringify(medians)} ratio ${ratio.toFixed(2)}\n`);
    // On failure the medians show which case stands out.
    expect({ medians, ratioBelow1_5: ratio < 1.5 }).toEqual({ medians, ratioBelow1_5: true });
    // BCrypt dominates: every case spends at least one compare at cost 10 (tens of ms).
    expect(Math.min(...values)).toBeGreaterThan(15);
  }, 60_000);
});
