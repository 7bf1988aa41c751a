import { randomBytes, randomUUID } from 'node:crypto';

import { BACKENDS } from '../support/backends';
import {
  ACCOUNT_DISABLED,
  ACCOUNT_LOCKED,
  BAD_CREDENTIALS,
  FORBIDDEN,
  NOT_LOGGED_IN,
  OK_NO_DATA,
} from '../support/envelopes';
import { createActiveUser, createRole, createUser, TestUser } from '../support/factories';
import { namesFields } from '../support/field-errors';
import { epochMs, Reply, startApp, TestApp } from '../support/test-app';

const LOCK_MINUTES = 10;
const MINUTE = 60_000;
const WRONG = 'Wrong#pass1';

const ADMIN_OPERATIONS = ['lock', 'unlock', 'disable', 'enable'] as const;

interface AccountState {
  locked: boolean;
  unlockTime: number | null;
  disabled: boolean;
}

describe.each(BACKENDS)('account lock and disable (3.2, 4.5) on $name', (backend) => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startApp(backend);
  });
  afterAll(() => app.close());

  beforeEach(async () => {
    await app.saveLoginStrategy({ maxFailureTimes: 3, maxFailureInterval: 24, lockMinutes: LOCK_MINUTES });
  });

  /** The sys_user columns of the lock and disable states, as stored. */
  async function state(user: TestUser): Promise<AccountState> {
    const row = await app.userRow(user.id);
    return { locked: !!Number(row.locked), unlockTime: epochMs(row.unlock_time), disabled: !!Number(row.disabled) };
  }

  /** Log rows written while a factory set the user up (createActiveUser logs in once). */
  const setupRows = new Map<string, number>();

  async function allStatuses(user: TestUser): Promise<string[]> {
    const rows = await app.db.query('SELECT status FROM sys_login_log WHERE user_id = ? ORDER BY id', [user.id]);
    return rows.map((r: any) => r.status);
  }

  /** A user with a changed (not initial) password; its log counts from here. */
  async function activeUser(): Promise<TestUser> {
    const user = await createActiveUser(app);
    setupRows.set(user.id, (await allStatuses(user)).length);
    return user;
  }

  /** Statuses of the user's sys_login_log rows written by the test, oldest first. */
  async function logStatuses(user: TestUser): Promise<string[]> {
    return (await allStatuses(user)).slice(setupRows.get(user.id) ?? 0);
  }

  async function countStatus(user: TestUser, status: string): Promise<number> {
    return (await logStatuses(user)).filter((s) => s === status).length;
  }

  async function failTimes(user: TestUser, times: number): Promise<Reply[]> {
    const replies: Reply[] = [];
    for (let i = 0; i < times; i++) replies.push(await app.login(user.username, WRONG));
    return replies;
  }

  async function lockByFailures(user: TestUser): Promise<void> {
    await failTimes(user, 3);
    expect((await state(user)).locked).toBe(true);
  }

  const unlocked = { locked: false, unlockTime: null, disabled: false };

  describe('lock state, spec table 3.1', () => {
    it('locks on the wrong password that reaches maxFailureTimes (that attempt still answers BAD_CREDENTIALS), until now + lockMinutes', async () => {
      const user = await activeUser();
      const [first, second] = await failTimes(user, 2);
      expect(first.status).toBe(401);
      expect(first.body).toEqual(BAD_CREDENTIALS);
      expect(second.body).toEqual(BAD_CREDENTIALS);
      expect(await state(user)).toEqual(unlocked);

      const [third] = await failTimes(user, 1);
      expect(third.status).toBe(401);
      expect(third.body).toEqual(BAD_CREDENTIALS);
      expect(await state(user)).toEqual({
        locked: true,
        unlockTime: app.clock.nowMs() + LOCK_MINUTES * MINUTE,
        disabled: false,
      });
      expect(await logStatuses(user)).toEqual(['passwrong', 'passwrong', 'passwrong']);
    });

    it('refuses a locked account with ACCOUNT_LOCKED even to the right password, logged as locked and not counted', async () => {
      const user = await activeUser();
      await lockByFailures(user);
      const lockedState = await state(user);

      const right = await app.login(user.username, user.password);
      expect(right.status).toBe(423);
      expect(right.body).toEqual(ACCOUNT_LOCKED);
      // The same answer to a wrong guess: the reply never tells whether the guess was right.
      const wrong = await app.login(user.username, WRONG);
      expect(wrong.status).toBe(423);
      expect(wrong.body).toEqual(ACCOUNT_LOCKED);

      expect(await logStatuses(user)).toEqual(['passwrong', 'passwrong', 'passwrong', 'locked', 'locked']);
      const [lastRow] = (await app.logRows(user.username)).slice(-1);
      expect(lastRow).toMatchObject({ status: 'locked', user_id: user.id, failure_reason: '用户已被锁定' });
      // Refused attempts do not extend the lock.
      expect(await state(user)).toEqual(lockedState);
    });

    it('stays locked while unlock_time is not yet reached', async () => {
      const user = await activeUser();
      await lockByFailures(user);
      const lockedState = await state(user);
      app.clock.set(lockedState.unlockTime! - 1);

      const res = await app.login(user.username, user.password);
      expect(res.status).toBe(423);
      expect(res.body).toEqual(ACCOUNT_LOCKED);
      expect(await state(user)).toEqual(lockedState);
    });

    it('Exactly at unlock_time the account is still locked; 1 ms later the login unlocks it', async () => {
      const user = await activeUser();
      await lockByFailures(user);
      const lockedState = await state(user);
      expect(lockedState.unlockTime).toBe(app.clock.nowMs() + LOCK_MINUTES * MINUTE);

      // unlock_time == now: not earlier than now, so the lock holds.
      app.clock.set(lockedState.unlockTime!);
      const atUnlockTime = await app.login(user.username, user.password);
      expect(atUnlockTime.status).toBe(423);
      expect(atUnlockTime.body).toEqual(ACCOUNT_LOCKED);
      expect(await state(user)).toEqual(lockedState);

      // unlock_time is now 1 ms in the past: the lock ends and the login goes on to success.
      app.clock.set(lockedState.unlockTime! + 1);
      const justAfter = await app.login(user.username, user.password);
      expect(justAfter.status).toBe(200);
      expect(justAfter.body).toMatchObject({ success: true, code: 'OK', message: '操作成功' });
      expect(await state(user)).toEqual(unlocked);
      expect((await logStatuses(user)).slice(-2)).toEqual(['locked', 'success']);
    });

    it('once unlock_time has passed, the next login unlocks the account and continues to a successful login', async () => {
      const user = await activeUser();
      await lockByFailures(user);
      app.clock.advance(LOCK_MINUTES * MINUTE + 1);

      const res = await app.login(user.username, user.password);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ success: true, code: 'OK' });
      expect(await state(user)).toEqual(unlocked);
      expect((await logStatuses(user)).at(-1)).toBe('success');
      expect((await app.post('/sys/me/info', {}, { token: res.body.data!.accessToken })).body.success).toBe(true);
    });

    it('the unlocking login goes on with the next checks: a disabled account then answers ACCOUNT_DISABLED', async () => {
      const user = await activeUser();
      await lockByFailures(user);
      // Disable first, then lock again by the administrator so that unlock_time is set (disable clears it).
      await app.admin('/sys/user/disable', { id: user.id });
      await app.admin('/sys/user/lock', { id: user.id });
      app.clock.advance(LOCK_MINUTES * MINUTE + 1);

      const res = await app.login(user.username, user.password);
      expect(res.status).toBe(403);
      expect(res.body).toEqual(ACCOUNT_DISABLED);
      expect(await state(user)).toEqual({ locked: false, unlockTime: null, disabled: true });
    });

    it('after an automatic unlock the failure count starts again from zero', async () => {
      const user = await activeUser();
      await lockByFailures(user);
      app.clock.advance(LOCK_MINUTES * MINUTE + 1);

      // The unlocking attempt itself is a wrong password: it unlocks, then counts as failure 1 of a new count.
      const unlocking = await app.login(user.username, WRONG);
      expect(unlocking.body).toEqual(BAD_CREDENTIALS);
      expect(await state(user)).toEqual(unlocked);
      await failTimes(user, 1);
      expect(await state(user)).toEqual(unlocked);
      // The three failures before the unlock are still inside the 24 h window, yet do not count.
      await failTimes(user, 1);
      expect(await state(user)).toEqual({
        locked: true,
        unlockTime: app.clock.nowMs() + LOCK_MINUTES * MINUTE,
        disabled: false,
      });
      expect(await countStatus(user, 'passwrong')).toBe(6);
    });

    it("admin /sys/user/lock locks with unlock_time = now + lockMinutes and ends the user's sessions", async () => {
      await app.saveLoginStrategy({ lockMinutes: 45 });
      const user = await activeUser();
      const token = await app.token(user.username, user.password);
      const other = await app.token(user.username, user.password, { ip: '10.2.2.2' });
      expect((await app.post('/sys/me/info', {}, { token })).body.success).toBe(true);

      const res = await app.admin('/sys/user/lock', { id: user.id });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(OK_NO_DATA);
      expect(await state(user)).toEqual({ locked: true, unlockTime: app.clock.nowMs() + 45 * MINUTE, disabled: false });

      for (const t of [token, other]) {
        const me = await app.post('/sys/me/info', {}, { token: t });
        expect(me.status).toBe(401);
        expect(me.body).toEqual(NOT_LOGGED_IN);
      }
      expect((await app.login(user.username, user.password)).body).toEqual(ACCOUNT_LOCKED);
    });

    it('admin /sys/user/unlock unlocks (locked false, unlock_time null) and the failure count starts again from zero', async () => {
      const user = await activeUser();
      await lockByFailures(user);
      app.clock.advance(1_000);

      const res = await app.admin('/sys/user/unlock', { id: user.id });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(OK_NO_DATA);
      expect(await state(user)).toEqual(unlocked);

      // Two new failures do not lock, although five passwrong rows now sit in the window.
      await failTimes(user, 2);
      expect(await state(user)).toEqual(unlocked);
      expect(await countStatus(user, 'passwrong')).toBe(5);
      expect((await app.login(user.username, user.password)).status).toBe(200);
      await failTimes(user, 1);
      expect((await state(user)).locked).toBe(true);
    });

    it('admin unlock also ends a lock set by the administrator, well before unlock_time', async () => {
      const user = await activeUser();
      await app.admin('/sys/user/lock', { id: user.id });
      expect((await app.login(user.username, user.password)).body).toEqual(ACCOUNT_LOCKED);
      await app.admin('/sys/user/unlock', { id: user.id });
      expect(await state(user)).toEqual(unlocked);
      expect((await app.login(user.username, user.password)).status).toBe(200);
    });

    it('a successful login does not reset the failure count', async () => {
      const user = await activeUser();
      await failTimes(user, 2);
      const ok = await app.login(user.username, user.password);
      expect(ok.status).toBe(200);
      expect(await state(user)).toEqual(unlocked);

      const [third] = await failTimes(user, 1);
      expect(third.body).toEqual(BAD_CREDENTIALS);
      expect((await state(user)).locked).toBe(true);
      expect(await logStatuses(user)).toEqual(['passwrong', 'passwrong', 'success', 'passwrong']);
    });

    it('failures older than maxFailureInterval hours are not counted', async () => {
      await app.saveLoginStrategy({ maxFailureInterval: 1 });
      const user = await activeUser();
      await failTimes(user, 2);
      app.clock.advanceMinutes(61);

      // The two old failures fell out of the 1 h window: this is failure 1 (then 2) of the window.
      await failTimes(user, 2);
      expect(await state(user)).toEqual(unlocked);
      await failTimes(user, 1);
      expect((await state(user)).locked).toBe(true);
    });

    it('maxFailureTimes 1: the very first wrong password reaches it (0 earlier + the current one) and locks', async () => {
      await app.saveLoginStrategy({ maxFailureTimes: 1 });
      const user = await activeUser();
      const [first] = await failTimes(user, 1);
      expect(first.status).toBe(401);
      expect(first.body).toEqual(BAD_CREDENTIALS);
      expect(await state(user)).toEqual({
        locked: true,
        unlockTime: app.clock.nowMs() + LOCK_MINUTES * MINUTE,
        disabled: false,
      });
      expect((await app.login(user.username, user.password)).body).toEqual(ACCOUNT_LOCKED);
    });

    it('window edge "since now − maxFailureInterval hours": a failure exactly maxFailureInterval old still counts', async () => {
      await app.saveLoginStrategy({ maxFailureInterval: 1 });
      const user = await activeUser();
      const firstFailures = app.clock.nowMs();
      await failTimes(user, 2);
      app.clock.set(firstFailures + 60 * MINUTE);

      // The two failures sit exactly on the window start: 2 + the current failure reach 3.
      const [third] = await failTimes(user, 1);
      expect(third.body).toEqual(BAD_CREDENTIALS);
      expect(await state(user)).toEqual({
        locked: true,
        unlockTime: app.clock.nowMs() + LOCK_MINUTES * MINUTE,
        disabled: false,
      });
    });

    it('window edge: a failure 1 ms older than maxFailureInterval hours is not counted', async () => {
      await app.saveLoginStrategy({ maxFailureInterval: 1 });
      const user = await activeUser();
      const firstFailures = app.clock.nowMs();
      await failTimes(user, 2);
      app.clock.set(firstFailures + 60 * MINUTE + 1);

      // Both fell out of the window: this is failure 1, then 2, of the window; the next one locks.
      await failTimes(user, 2);
      expect(await state(user)).toEqual(unlocked);
      await failTimes(user, 1);
      expect((await state(user)).locked).toBe(true);
      expect(await countStatus(user, 'passwrong')).toBe(5);
    });

    it('failures inside maxFailureInterval hours are counted together', async () => {
      await app.saveLoginStrategy({ maxFailureInterval: 1 });
      const user = await activeUser();
      await failTimes(user, 2);
      app.clock.advanceMinutes(59);

      await failTimes(user, 1);
      expect(await state(user)).toEqual({
        locked: true,
        unlockTime: app.clock.nowMs() + LOCK_MINUTES * MINUTE,
        disabled: false,
      });
    });

    it("counts only this user's failures: other accounts' failures and unknown accounts do not lock it", async () => {
      const user = await activeUser();
      const neighbour = await activeUser();
      await failTimes(neighbour, 3);
      await app.login(`nobody_${randomBytes(3).toString('hex')}`, WRONG);
      await failTimes(user, 2);
      expect(await state(user)).toEqual(unlocked);
      expect((await state(neighbour)).locked).toBe(true);
    });
  });

  describe('disabled state, spec table 3.2', () => {
    it('admin disable: disabled true, sessions end, the right password answers ACCOUNT_DISABLED 403, a wrong one BAD_CREDENTIALS', async () => {
      const user = await activeUser();
      const token = await app.token(user.username, user.password);

      const res = await app.admin('/sys/user/disable', { id: user.id });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(OK_NO_DATA);
      expect(await state(user)).toEqual({ locked: false, unlockTime: null, disabled: true });

      const me = await app.post('/sys/me/info', {}, { token });
      expect(me.status).toBe(401);
      expect(me.body).toEqual(NOT_LOGGED_IN);

      const right = await app.login(user.username, user.password);
      expect(right.status).toBe(403);
      expect(right.body).toEqual(ACCOUNT_DISABLED);
      // Order: the password is checked before the disabled state.
      expect((await app.login(user.username, WRONG)).body).toEqual(BAD_CREDENTIALS);
      expect((await logStatuses(user)).slice(-2)).toEqual(['disabled', 'passwrong']);
    });

    it('admin enable: disabled false, and the right password logs in again', async () => {
      const user = await activeUser();
      await app.admin('/sys/user/disable', { id: user.id });

      const res = await app.admin('/sys/user/enable', { id: user.id });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(OK_NO_DATA);
      expect(await state(user)).toEqual(unlocked);
      const login = await app.login(user.username, user.password);
      expect(login.status).toBe(200);
      expect(login.body.data!.accessToken).toEqual(expect.any(String));
    });

    it('disable clears unlock_time; a lock without unlock_time then lasts until an administrator unlocks it', async () => {
      const user = await activeUser();
      await lockByFailures(user);

      await app.admin('/sys/user/disable', { id: user.id });
      expect(await state(user)).toEqual({ locked: true, unlockTime: null, disabled: true });
      // Locked with an empty unlock_time stays locked, however much time passes.
      app.clock.advanceMinutes(LOCK_MINUTES * 10);
      expect((await app.login(user.username, user.password)).body).toEqual(ACCOUNT_LOCKED);

      await app.admin('/sys/user/unlock', { id: user.id });
      expect((await app.login(user.username, user.password)).body).toEqual(ACCOUNT_DISABLED);
    });

    it('enable clears unlock_time', async () => {
      const user = await activeUser();
      await app.admin('/sys/user/disable', { id: user.id });
      await app.admin('/sys/user/lock', { id: user.id });
      expect((await state(user)).unlockTime).toBe(app.clock.nowMs() + LOCK_MINUTES * MINUTE);

      await app.admin('/sys/user/enable', { id: user.id });
      const after = await state(user);
      expect(after.disabled).toBe(false);
      expect(after.unlockTime).toBeNull();
    });

    it('after enable the failure count starts again from zero', async () => {
      const user = await activeUser();
      await failTimes(user, 2);
      app.clock.advance(1_000);
      await app.admin('/sys/user/disable', { id: user.id });
      await app.admin('/sys/user/enable', { id: user.id });
      await failTimes(user, 2);
      expect(await state(user)).toEqual(unlocked);
      await failTimes(user, 1);
      expect((await state(user)).locked).toBe(true);
    });
  });

  describe('parallel attempts', () => {
    it('20 parallel wrong passwords with maxFailureTimes 5: exactly 5 evaluated and logged passwrong, the account locked, the other 15 refused as locked', async () => {
      await app.saveLoginStrategy({ maxFailureTimes: 5 });
      const user = await activeUser();

      const replies = await Promise.all(
        Array.from({ length: 20 }, (_, i) => app.login(user.username, `${WRONG}${i}`, { ip: `10.20.0.${i + 1}` })),
      );

      expect(replies.filter((r) => r.status >= 500)).toEqual([]);
      const codes = replies.map((r) => r.body.code);
      expect(codes.filter((c) => c === 'BAD_CREDENTIALS')).toHaveLength(5);
      expect(codes.filter((c) => c === 'ACCOUNT_LOCKED')).toHaveLength(15);
      for (const r of replies.filter((x) => x.body.code === 'ACCOUNT_LOCKED')) {
        expect(r.status).toBe(423);
        expect(r.body).toEqual(ACCOUNT_LOCKED);
      }
      expect(await countStatus(user, 'passwrong')).toBe(5);
      expect(await countStatus(user, 'locked')).toBe(15);
      expect(await logStatuses(user)).toHaveLength(20);
      expect(await state(user)).toEqual({
        locked: true,
        unlockTime: app.clock.nowMs() + LOCK_MINUTES * MINUTE,
        disabled: false,
      });
    });

    it('20 parallel attempts mixing right and wrong passwords: no 5xx, every attempt logged as answered, and the sessions won before the lock live on', async () => {
      await app.saveLoginStrategy({ maxFailureTimes: 5 });
      const user = await activeUser();

      const replies = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          app.login(user.username, i % 2 === 0 ? user.password : `${WRONG}${i}`, { ip: `10.21.0.${i + 1}` }),
        ),
      );

      expect(replies.filter((r) => r.status >= 500)).toEqual([]);
      for (const r of replies) expect([200, 401, 423]).toContain(r.status);
      const count = (code: string) => replies.filter((r) => r.body.code === code).length;
      // Ten wrong passwords: five are evaluated and lock the account, the rest meet the lock.
      expect(count('BAD_CREDENTIALS')).toBe(5);
      expect(count('OK') + count('ACCOUNT_LOCKED')).toBe(15);
      expect(await countStatus(user, 'passwrong')).toBe(5);
      expect(await countStatus(user, 'success')).toBe(count('OK'));
      expect(await countStatus(user, 'locked')).toBe(count('ACCOUNT_LOCKED'));
      expect((await state(user)).locked).toBe(true);

      // A lock reached by wrong passwords refuses new logins but ends no session, including
      // those of logins that proved the right password before it.
      for (const r of replies.filter((x) => x.body.code === 'OK')) {
        expect((await app.post('/sys/me/info', {}, { token: r.body.data!.accessToken })).body.code).toBe('OK');
      }
    });
  });

  describe('administrator operations', () => {
    it.each(ADMIN_OPERATIONS)('/sys/user/%s with an unknown id answers NOT_FOUND 404', async (op) => {
      for (const id of [randomUUID(), 'no-such-user']) {
        const res = await app.admin(`/sys/user/${op}`, { id });
        expect(res.status).toBe(404);
        expect(res.body).toMatchObject({ success: false, code: 'NOT_FOUND', data: null });
      }
    });

    it.each(ADMIN_OPERATIONS)(
      '/sys/user/%s without a valid id answers VALIDATION_FAILED 400 naming the field',
      async (op) => {
        for (const body of [{}, { id: '' }, { id: 42 }]) {
          const res = await app.admin(`/sys/user/${op}`, body);
          expect(res.status).toBe(400);
          expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_FAILED', data: namesFields('id') });
          expect(res.body.message).toContain('编号');
        }
      },
    );

    it('a user holding only sys:user:lock may lock, and gets FORBIDDEN 403 on unlock, disable and enable', async () => {
      const role = `locker_${randomBytes(3).toString('hex')}`;
      await createRole(app, role, ['sys:user:lock']);
      const operator = await createUser(app, { roles: [role] });
      const token = await app.token(operator.username, operator.password);
      const target = await activeUser();

      for (const op of ['unlock', 'disable', 'enable']) {
        const res = await app.post(`/sys/user/${op}`, { id: target.id }, { token });
        expect(res.status).toBe(403);
        expect(res.body).toEqual(FORBIDDEN);
      }
      expect(await state(target)).toEqual(unlocked);

      const lock = await app.post('/sys/user/lock', { id: target.id }, { token });
      expect(lock.body).toEqual(OK_NO_DATA);
      expect((await state(target)).locked).toBe(true);
    });

    it.each(ADMIN_OPERATIONS)(
      '/sys/user/%s needs its permission: FORBIDDEN 403 for a user without it, NOT_LOGGED_IN 401 without a token',
      async (op) => {
        const role = `viewer_${randomBytes(3).toString('hex')}`;
        await createRole(app, role, ['sys:user:list']);
        const operator = await createUser(app, { roles: [role] });
        const token = await app.token(operator.username, operator.password);
        const target = await activeUser();
        if (op === 'unlock' || op === 'enable') {
          await app.admin('/sys/user/lock', { id: target.id });
          await app.admin('/sys/user/disable', { id: target.id });
        }
        const before = await state(target);

        const res = await app.post(`/sys/user/${op}`, { id: target.id }, { token });
        expect(res.status).toBe(403);
        expect(res.body).toEqual(FORBIDDEN);
        const anonymous = await app.post(`/sys/user/${op}`, { id: target.id });
        expect(anonymous.status).toBe(401);
        expect(anonymous.body).toEqual(NOT_LOGGED_IN);
        expect(await state(target)).toEqual(before);
      },
    );
  });
});
