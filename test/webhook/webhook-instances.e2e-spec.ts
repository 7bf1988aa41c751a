import { BACKENDS, mariadbRedis } from '../support/backends';
import { createActiveUser, TestUser } from '../support/factories';
import { sqlDuring } from '../support/sql-trace';
import { startApp, TestApp } from '../support/test-app';
import { waitFor } from '../support/wait';
import { WebhookSink } from '../support/webhook-sink';

/**
 * The enabled webhooks are held in each instance's memory (src/webhook/webhook.cache.ts): logins
 * cost no query of them while they do not change, on SQLite + memory and MariaDB + Redis. A change
 * is seen at the next event on the instance where it was made, and on another instance (two in this
 * process, on one MariaDB, one Redis and one clock) once a second has passed. The clock is moved,
 * never waited for.
 */
interface Hook {
  id: string;
  path: string;
}

/** The query of the enabled webhooks, on either database (the other queries of sys_webhook read one by id). */
const ENABLED_QUERY = /FROM [`"]sys_webhook[`"].*WHERE.*[`"]enabled[`"]/s;
const enabledQueries = (sql: string[]) => sql.filter((statement) => ENABLED_QUERY.test(statement));

let seq = 0;
/** Where the logins on instance B come from, so that its events are told from A's. */
const B_IP = '10.66.0.2';

function suiteHelpers(sink: () => WebhookSink) {
  async function createHook(on: TestApp, events: string[]): Promise<Hook> {
    seq += 1;
    const path = `/instances/${seq}`;
    const res = await on.admin('/sys/webhook/save', { url: sink().at(path), events, enabled: true });
    expect(res.body).toMatchObject({ success: true, data: { id: expect.any(String) } });
    return { id: res.body.data.id, path };
  }

  /** A login.succeeded of `user` (from `ip`, when given) that reached `hook`, once one has. */
  const loginAt = (hook: Hook, user: TestUser, ip?: string) =>
    waitFor(
      () =>
        sink().requests.find(
          (r) =>
            r.url === hook.path &&
            r.body.type === 'login.succeeded' &&
            r.body.data.userId === user.id &&
            (ip === undefined || r.body.data.ip === ip),
        ),
      `the login of ${user.username} at ${hook.path}`,
    );

  /** The outbox rows queued for `hook` about `user`. */
  const queuedFor = async (on: TestApp, hook: Hook, user: TestUser): Promise<unknown[]> =>
    (
      await on.db.query("SELECT id, payload FROM sys_notification WHERE channel = 'webhook' AND user_id = ?", [hook.id])
    ).filter((row: { payload: string }) => JSON.parse(row.payload).data.userId === user.id);

  return { createHook, loginAt, queuedFor };
}

describe.each(BACKENDS)('the enabled webhooks held in memory on $name', (backend) => {
  let app: TestApp;
  let sink: WebhookSink;
  const { createHook, loginAt, queuedFor } = suiteHelpers(() => sink);

  beforeAll(async () => {
    app = await startApp(backend);
    sink = await new WebhookSink().start();
  });
  afterAll(async () => {
    await app?.close();
    await sink?.stop();
  });

  /** Logs `user` in and waits until its login is queued for `hook` (its webhooks looked at). */
  async function login(user: TestUser, hook: Hook): Promise<void> {
    const queued = (await queuedFor(app, hook, user)).length;
    await app.token(user.username, user.password);
    await waitFor(async () => (await queuedFor(app, hook, user)).length > queued, `the login of ${user.username}`);
  }

  it('logins over several seconds reach their webhook without one query of the enabled webhooks', async () => {
    const hook = await createHook(app, ['login.succeeded']);
    const users = [await createActiveUser(app), await createActiveUser(app), await createActiveUser(app)];
    // The first event after the save reads the webhooks; the logins traced below find them in memory.
    await login(users[0], hook);
    const sql = await sqlDuring(app.db, async () => {
      for (const user of users) {
        for (let i = 0; i < 3; i++) {
          app.clock.advance(400);
          await login(user, hook);
        }
      }
    });
    expect(enabledQueries(sql)).toEqual([]);
    for (const user of users) await loginAt(hook, user);
    // The trace does see the query where there is one: the reload each minute.
    app.clock.advance(60_000);
    const reload = await sqlDuring(app.db, () => login(users[0], hook));
    expect(enabledQueries(reload)).toHaveLength(1);
  });

  it('a webhook created or deleted here is seen at the next login, the clock unmoved', async () => {
    const user = await createActiveUser(app);
    await app.token(user.username, user.password);
    const hook = await createHook(app, ['login.succeeded']);
    await app.token(user.username, user.password);
    await loginAt(hook, user);
    expect((await app.admin('/sys/webhook/delete', { id: hook.id })).body.success).toBe(true);
    // Created last: the webhooks are looked at oldest first, so the deleted one's row would come before this one's.
    const witness = await createHook(app, ['login.succeeded']);
    const other = await createActiveUser(app);
    await app.token(other.username, other.password);
    await loginAt(witness, other);
    expect(await queuedFor(app, hook, other)).toEqual([]);
  });
});

describe('the enabled webhooks across two instances (mariadb+redis)', () => {
  let a: TestApp;
  let b: TestApp;
  let sink: WebhookSink;
  const { createHook, loginAt, queuedFor } = suiteHelpers(() => sink);

  beforeAll(async () => {
    a = await startApp(mariadbRedis);
    b = await startApp(mariadbRedis, { provisioned: a.provisioned, clock: a.clock });
    sink = await new WebhookSink().start();
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await sink?.stop();
  });

  /** A login on B, once `witness` has heard of it (so B has looked at its webhooks). */
  async function loginOnB(user: TestUser, witness: Hook): Promise<void> {
    await b.token(user.username, user.password, { ip: B_IP });
    await loginAt(witness, user, B_IP);
  }

  it('a webhook created on A hears of a login on B once a second has passed; B reads the webhooks once', async () => {
    const witness = await createHook(a, ['login.succeeded']);
    a.clock.advance(1_000);
    // B now holds the webhooks as they are before the save.
    await loginOnB(await createActiveUser(a), witness);
    const hook = await createHook(a, ['login.succeeded']);
    a.clock.advance(1_000);
    const sql = await sqlDuring(b.db, async () => {
      for (let i = 0; i < 4; i++) {
        await loginOnB(await createActiveUser(a), hook);
        a.clock.advance(400);
      }
    });
    expect(enabledQueries(sql)).toHaveLength(1);
  });

  it('a webhook deleted on A gets nothing of a login on B once a second has passed', async () => {
    const hook = await createHook(a, ['login.succeeded']);
    // Created last: the webhooks are looked at oldest first, so the deleted one's row would come before this one's.
    const witness = await createHook(a, ['login.succeeded']);
    a.clock.advance(1_000);
    const before = await createActiveUser(a);
    await loginOnB(before, witness);
    await loginAt(hook, before, B_IP);
    expect((await a.admin('/sys/webhook/delete', { id: hook.id })).body.success).toBe(true);
    a.clock.advance(1_000);
    const after = await createActiveUser(a);
    await loginOnB(after, witness);
    expect(await queuedFor(b, hook, after)).toEqual([]);
    expect(sink.requests.filter((r) => r.url === hook.path && r.body.data.userId === after.id)).toEqual([]);
  });
});
