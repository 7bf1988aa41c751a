import { randomBytes } from 'node:crypto';

import { CompareSlots } from '../../src/user-account/compare-slots';
import { PasswordHasher } from '../../src/user-account/password-hasher';
import { BACKENDS, mariadbRedis } from '../support/backends';
import { ACCOUNT_LOCKED, BAD_CREDENTIALS } from '../support/envelopes';
import { createActiveUser, TestUser } from '../support/factories';
import { startApp, TestApp } from '../support/test-app';
import { sleep, waitFor } from '../support/wait';

/**
 * The compares of one account run at once, in slots — never more at a time than
 * maxFailureTimes − failures, so that no more than maxFailureTimes wrong passwords are evaluated
 * before the lock, on one instance or two — and a right password racing wrong ones gets the answer
 * a serial order would give. test/user-account/lockout.e2e-spec.ts keeps the exactness under 20 parallel attempts.
 */

const WRONG = 'Wrong#pass1';

/**
 * Wraps the app's password compares: counts those of the watched passwords, how many run at once
 * and which were wrong; a compare may be held at a gate (a slow compare, or one that is running
 * while something else happens).
 */
class CompareProbe {
  running = 0;
  maxRunning = 0;
  evaluated: { plain: string; right: boolean }[] = [];
  /** Compares of these passwords wait here until open() (all pass when null). */
  private gate: { held: Set<string>; open: Promise<void>; release: () => void } | null = null;
  private watched = new Set<string>();
  delayMs = 30;

  constructor(hashers: PasswordHasher[]) {
    for (const hasher of hashers) {
      const matches = hasher.matches.bind(hasher);
      hasher.matches = async (plain: string, hash: string) => {
        if (!this.watched.has(plain)) return matches(plain, hash);
        this.running += 1;
        this.maxRunning = Math.max(this.maxRunning, this.running);
        try {
          const right = await matches(plain, hash);
          await sleep(this.delayMs);
          if (this.gate?.held.has(plain)) await this.gate.open;
          this.evaluated.push({ plain, right });
          return right;
        } finally {
          this.running -= 1;
        }
      };
    }
  }

  watch(...plains: string[]): void {
    this.running = 0;
    this.maxRunning = 0;
    this.evaluated = [];
    this.watched = new Set(plains);
  }

  hold(...plains: string[]): void {
    let release!: () => void;
    const open = new Promise<void>((r) => {
      release = r;
    });
    this.gate = { held: new Set(plains), open, release };
  }

  open(): void {
    this.gate?.release();
    this.gate = null;
  }

  wrongCount(): number {
    return this.evaluated.filter((e) => !e.right).length;
  }
}

const wrongs = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${WRONG}-${tag}-${i}`);

describe.each(BACKENDS)('compare slots of one account on $name', (backend) => {
  let app: TestApp;
  let probe: CompareProbe;

  beforeAll(async () => {
    app = await startApp(backend);
    probe = new CompareProbe([app.app.get(PasswordHasher)]);
  });
  afterAll(() => app.close());

  beforeEach(async () => {
    await app.saveLoginStrategy({ maxFailureTimes: 5, maxFailureInterval: 24, lockMinutes: 10, multiOnline: true });
  });
  afterEach(() => probe.open());

  const statuses = async (user: TestUser, since: number): Promise<string[]> => {
    const rows = await app.db.query('SELECT status FROM sys_login_log WHERE user_id = ? ORDER BY id', [user.id]);
    return rows.slice(since).map((r: any) => r.status);
  };
  const logCount = async (user: TestUser) =>
    (await app.db.query('SELECT id FROM sys_login_log WHERE user_id = ?', [user.id])).length;
  const liveTokens = (user: TestUser) => app.store.sMembers(`AUTH_USER_TOKENS:${user.id}`);
  const locked = async (user: TestUser) => !!Number((await app.userRow(user.id)).locked);

  it('right passwords of one account are compared at once, never more than maxFailureTimes at a time, and all log in', async () => {
    const user = await createActiveUser(app);
    probe.watch(user.password);

    const replies = await Promise.all(
      Array.from({ length: 12 }, (_, i) => app.login(user.username, user.password, { ip: `10.30.0.${i + 1}` })),
    );

    expect(replies.map((r) => r.body.code)).toEqual(Array(12).fill('OK'));
    expect(probe.evaluated).toHaveLength(12);
    // Today's mutex around the compare ran them one by one.
    expect(probe.maxRunning).toBeGreaterThan(1);
    expect(probe.maxRunning).toBeLessThanOrEqual(5);
    expect(await liveTokens(user)).toHaveLength(12);
  });

  it('compares run only in the slots the failures leave: with 3 of 5 counted, 2 at a time', async () => {
    const user = await createActiveUser(app);
    for (const w of wrongs(3, 'pre')) expect((await app.login(user.username, w)).body).toEqual(BAD_CREDENTIALS);
    probe.watch(user.password);

    const replies = await Promise.all(Array.from({ length: 6 }, () => app.login(user.username, user.password)));

    expect(replies.map((r) => r.body.code)).toEqual(Array(6).fill('OK'));
    expect(probe.maxRunning).toBe(2);
  });

  it('logins that find no free slot are served in the order they came, not by luck', async () => {
    await app.saveLoginStrategy({ maxFailureTimes: 1 });
    const user = await createActiveUser(app);
    probe.watch(user.password);
    probe.hold(user.password);
    const answered: string[] = [];
    const login = (name: string) =>
      app.login(user.username, user.password).then((r) => {
        answered.push(name);
        return r;
      });

    const first = login('first');
    await waitFor(() => probe.running === 1, 'the first compare in flight', 3000);
    const waiting: Promise<unknown>[] = [];
    for (const name of ['w1', 'w2', 'w3', 'w4', 'w5']) {
      waiting.push(login(name));
      await sleep(25);
    }
    probe.open();
    const replies = (await Promise.all([first, ...waiting])) as { body: { code: string } }[];

    expect(replies.map((r) => r.body.code)).toEqual(Array(6).fill('OK'));
    expect(answered).toEqual(['first', 'w1', 'w2', 'w3', 'w4', 'w5']);
  });

  it('a right password admitted while wrong ones are compared logs in; the wrong ones then lock the account, exactly', async () => {
    await app.saveLoginStrategy({ maxFailureTimes: 3 });
    const user = await createActiveUser(app);
    const since = await logCount(user);
    const bad = wrongs(3, 'a');
    probe.watch(user.password, ...bad);
    probe.hold(...bad);

    // Two wrong passwords are being compared (held at the gate): one slot of three is left.
    const first = Promise.all(bad.slice(0, 2).map((w, i) => app.login(user.username, w, { ip: `10.31.0.${i + 1}` })));
    await waitFor(() => probe.running === 2, 'two compares in flight', 3000);
    // The right one takes it and is answered before any wrong one is counted.
    const right = await app.login(user.username, user.password, { ip: '10.31.0.9' });
    expect(right.body.code).toBe('OK');
    const third = app.login(user.username, bad[2], { ip: '10.31.0.3' });
    await waitFor(() => probe.running === 3, 'the third wrong one in the freed slot', 3000);
    probe.open();
    const replies = [...(await first), await third];

    expect(replies.map((r) => r.body)).toEqual([BAD_CREDENTIALS, BAD_CREDENTIALS, BAD_CREDENTIALS]);
    expect(probe.wrongCount()).toBe(3);
    expect(await locked(user)).toBe(true);
    expect((await statuses(user, since)).sort()).toEqual(['passwrong', 'passwrong', 'passwrong', 'success']);
    // An automatic lock ends no session, that of the login before it included.
    expect((await app.post('/sys/me/info', {}, { token: right.body.data!.accessToken })).body.code).toBe('OK');
  });

  it('a right password that finds every slot taken by wrong ones waits, and answers ACCOUNT_LOCKED once they lock the account: no token', async () => {
    await app.saveLoginStrategy({ maxFailureTimes: 3 });
    const user = await createActiveUser(app);
    const since = await logCount(user);
    const bad = wrongs(3, 'b');
    probe.watch(user.password, ...bad);
    probe.hold(...bad);

    const wrongReplies = Promise.all(bad.map((w, i) => app.login(user.username, w, { ip: `10.32.0.${i + 1}` })));
    await waitFor(() => probe.running === 3, 'three compares in flight', 3000);
    const right = app.login(user.username, user.password, { ip: '10.32.0.9' });
    await sleep(100);
    probe.open();
    const [replies, rightReply] = await Promise.all([wrongReplies, right]);

    expect(replies.map((r) => r.body)).toEqual([BAD_CREDENTIALS, BAD_CREDENTIALS, BAD_CREDENTIALS]);
    expect(rightReply.status).toBe(423);
    expect(rightReply.body).toEqual(ACCOUNT_LOCKED);
    // Refused before its compare: only the three wrong ones were evaluated.
    expect(probe.evaluated.map((e) => e.right)).toEqual([false, false, false]);
    expect((await statuses(user, since)).sort()).toEqual(['locked', 'passwrong', 'passwrong', 'passwrong']);
    expect(await liveTokens(user)).toEqual([]);
  });

  it('N wrong and 1 right in parallel, many times: exactly N evaluated and logged passwrong, the account locked, and the right one either in before the lock or ACCOUNT_LOCKED without a token', async () => {
    const N = 4;
    await app.saveLoginStrategy({ maxFailureTimes: N });
    for (let round = 0; round < 6; round++) {
      const user = await createActiveUser(app);
      const since = await logCount(user);
      const bad = wrongs(N, `r${round}`);
      probe.watch(user.password, ...bad);
      probe.delayMs = 5 + (round % 3) * 20;
      const order = [...bad, user.password];
      // The right one at a different place each round.
      order.splice(round % (N + 1), 0, order.pop()!);

      const replies = await Promise.all(
        order.map((p, i) => app.login(user.username, p, { ip: `10.33.${round}.${i + 1}` })),
      );
      const rightReply = replies[order.indexOf(user.password)];
      const wrongCodes = replies.filter((_, i) => order[i] !== user.password).map((r) => r.body.code);

      expect(replies.filter((r) => r.status >= 500)).toEqual([]);
      expect(wrongCodes).toEqual(Array(N).fill('BAD_CREDENTIALS'));
      expect(probe.wrongCount()).toBe(N);
      expect(await locked(user)).toBe(true);
      const logged = await statuses(user, since);
      expect(logged.filter((s) => s === 'passwrong')).toHaveLength(N);
      if (rightReply.body.code === 'OK') {
        expect(logged.filter((s) => s !== 'passwrong')).toEqual(['success']);
        expect(await liveTokens(user)).toEqual([expect.any(String)]);
      } else {
        expect(rightReply.body).toEqual(ACCOUNT_LOCKED);
        expect(logged.filter((s) => s !== 'passwrong')).toEqual(['locked']);
        expect(await liveTokens(user)).toEqual([]);
      }
    }
    probe.delayMs = 30;
  });

  it("an administrator's lock during a right password's compare wins: ACCOUNT_LOCKED, logged locked, no token", async () => {
    const user = await createActiveUser(app);
    const since = await logCount(user);
    await app.adminToken();
    probe.watch(user.password);
    probe.hold(user.password);

    const login = app.login(user.username, user.password);
    await waitFor(() => probe.running === 1, 'the compare in flight', 3000);
    // The lock takes the account's mutex, which the compare no longer holds.
    const lock = app.admin('/sys/user/lock', { id: user.id });
    await waitFor(() => locked(user), "the administrator's lock", 3000);
    probe.open();
    const [reply] = await Promise.all([login, lock]);

    expect(reply.status).toBe(423);
    expect(reply.body).toEqual(ACCOUNT_LOCKED);
    expect(await statuses(user, since)).toEqual(['locked']);
    expect(await liveTokens(user)).toEqual([]);
  });

  it('slots left by a crashed instance (no release, no renewal) hold logins back only until their lease ends', async () => {
    await app.saveLoginStrategy({ maxFailureTimes: 2 });
    const user = await createActiveUser(app);
    const lease = backend.name === 'sqlite+memory' ? 5_000 : 400;
    // What a compare in flight leaves in the store when its process dies: its lease, named in the account's set.
    for (const id of ['dead-1', 'dead-2']) {
      await app.store.set(`AUTH_LOGIN_SLOT:${user.id}:${id}`, id, lease);
      await app.store.sAdd(`AUTH_LOGIN_SLOTS:${user.id}`, id);
    }

    let answered = false;
    const login = app.login(user.username, user.password).finally(() => {
      answered = true;
    });
    await sleep(150);
    expect(answered).toBe(false);
    // The store's clock: the injected one for process memory, Redis's own for Redis.
    if (backend.name === 'sqlite+memory') app.clock.advance(lease + 1);
    const reply = await login;

    expect(reply.body.code).toBe('OK');
    // The login went ahead once one lease ended; the other dead slot, set a moment later, ends a
    // moment later, and the count that sees it lapsed drops its name.
    if (backend.name === 'sqlite+memory') app.clock.advance(lease + 1);
    const slots = app.app.get(CompareSlots);
    await waitFor(async () => (await slots.held(user.id)) === 0, 'the dead slots to lapse', 2 * lease);
    expect(await app.store.sMembers(`AUTH_LOGIN_SLOTS:${user.id}`)).toEqual([]);
  });
});

describe('compare slots shared by two instances on one MariaDB + Redis', () => {
  let a: TestApp;
  let b: TestApp;
  let probe: CompareProbe;

  beforeAll(async () => {
    a = await startApp(mariadbRedis);
    b = await startApp(mariadbRedis, { provisioned: a.provisioned, clock: a.clock });
    probe = new CompareProbe([a.app.get(PasswordHasher), b.app.get(PasswordHasher)]);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('20 parallel attempts, right and wrong, split across both: compares overlap, never more than maxFailureTimes wrong ones evaluated, exactly that many logged', async () => {
    await a.saveLoginStrategy({ maxFailureTimes: 5, maxFailureInterval: 24, lockMinutes: 10 });
    await waitFor(
      async () => (await b.admin('/sys/strategy/login/info')).body.data.maxFailureTimes === 5,
      'B to see the strategy',
      2000,
    );
    const user = await createActiveUser(a);
    const since = (await a.db.query('SELECT id FROM sys_login_log WHERE user_id = ?', [user.id])).length;
    const bad = wrongs(10, randomBytes(2).toString('hex'));
    probe.watch(user.password, ...bad);

    // Wrong and right in turn; A, A, B, B, A, A, ...
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 4 < 2 ? a : b).login(user.username, i % 2 === 0 ? bad[i >> 1] : user.password, { ip: `10.34.0.${i + 1}` }),
      ),
    );

    expect(replies.filter((r) => r.status >= 500)).toEqual([]);
    const count = (code: string) => replies.filter((r) => r.body.code === code).length;
    expect(count('BAD_CREDENTIALS')).toBe(5);
    expect(count('OK') + count('ACCOUNT_LOCKED')).toBe(15);
    expect(probe.wrongCount()).toBe(5);
    expect(probe.maxRunning).toBeGreaterThan(1);
    expect(probe.maxRunning).toBeLessThanOrEqual(5);
    const rows = await a.db.query('SELECT status FROM sys_login_log WHERE user_id = ? ORDER BY id', [user.id]);
    const logged = rows.slice(since).map((r: any) => r.status);
    expect(logged.filter((s: string) => s === 'passwrong')).toHaveLength(5);
    expect(logged.filter((s: string) => s === 'success')).toHaveLength(count('OK'));
    expect(logged.filter((s: string) => s === 'locked')).toHaveLength(count('ACCOUNT_LOCKED'));
    expect(!!Number((await a.userRow(user.id)).locked)).toBe(true);
    expect(await a.store.sMembers(`AUTH_USER_TOKENS:${user.id}`)).toHaveLength(count('OK'));
  });
});
