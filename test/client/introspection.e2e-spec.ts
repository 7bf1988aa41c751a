import { LoginPolicyError } from '../../client/src';
import { BACKENDS } from '../support/backends';
import { createActiveUser, createRole } from '../support/factories';
import { listenOnLocalPort, sha256hex, startApp, TestApp } from '../support/test-app';
import { countingClient, createApiKey } from './support';

/**
 * The Node client's introspection against a running service with a real API key, on both
 * backends: what it answers, which calls reach the service, and how long an ended session keeps
 * passing (the cache's time, no longer).
 */
describe.each(BACKENDS)('client introspection on $name', (backend) => {
  let app: TestApp;
  let url: string;
  let apiKey: string;
  const TTL = 5_000;

  beforeAll(async () => {
    app = await startApp(backend);
    url = await listenOnLocalPort(app);
    apiKey = (await createApiKey(app, ['sys:token:introspect'])).key;
    await createRole(app, 'reporter', ['report:read']);
  });
  afterAll(() => app.close());
  afterEach(() => app.saveLoginStrategy({ multiOnline: true, bindIp: false }));

  const newClient = () => countingClient(url, { apiKey, introspectionCache: { ttlMs: TTL } });

  async function loggedIn() {
    const user = await createActiveUser(app, { roles: ['reporter'] });
    const token = await app.token(user.username, user.password, { ip: '10.0.0.5' });
    return { user, token };
  }

  it("answers a live token's user and codes, and asks the service once within the TTL", async () => {
    const { client, clock, counter } = newClient();
    const { user, token } = await loggedIn();
    const first = await client.introspect(token);
    expect(first).toEqual({
      active: true,
      userId: user.id,
      username: user.username,
      permissions: ['report:read'],
      tempUser: false,
      loginTime: expect.any(Number),
      expireAt: expect.any(Number),
      mfa: false,
    });
    clock.now += TTL - 1;
    expect(await client.introspect(token)).toEqual(first);
    expect(counter.introspections).toBe(1);
    clock.now += 1;
    expect((await client.introspect(token)).active).toBe(true);
    expect(counter.introspections).toBe(2);
  });

  it('a session kicked out by an administrator passes until the TTL, then is NOT_LOGGED_IN', async () => {
    const { client, clock, counter } = newClient();
    const { token } = await loggedIn();
    expect((await client.introspect(token)).active).toBe(true);
    const kick = await app.admin('/sys/online/kickout', { tokenId: sha256hex(token) });
    expect(kick.body.code).toBe('OK');
    clock.now += TTL - 1;
    expect((await client.introspect(token)).active).toBe(true);
    clock.now += 1;
    expect(await client.introspect(token)).toEqual({ active: false, reason: 'NOT_LOGGED_IN' });
    expect(counter.introspections).toBe(2);
  });

  it('a session pushed out by a newer login is seen as KICKED_OUT after the TTL', async () => {
    await app.saveLoginStrategy({ multiOnline: false });
    const { client, clock } = newClient();
    const { user, token } = await loggedIn();
    expect((await client.introspect(token)).active).toBe(true);
    await app.token(user.username, user.password, { ip: '10.0.0.6' });
    clock.now += TTL;
    expect(await client.introspect(token)).toEqual({ active: false, reason: 'KICKED_OUT' });
  });

  it('a logged-out token is NOT_LOGGED_IN after the TTL, and the inactive answer is kept shorter', async () => {
    const { client, clock, counter } = newClient();
    const { token } = await loggedIn();
    await client.introspect(token);
    await app.post('/sys/logout', {}, { token });
    clock.now += TTL;
    expect(await client.introspect(token)).toEqual({ active: false, reason: 'NOT_LOGGED_IN' });
    expect(await client.introspect(token)).toEqual({ active: false, reason: 'NOT_LOGGED_IN' });
    expect(counter.introspections).toBe(2);
    clock.now += 1_000;
    await client.introspect(token);
    expect(counter.introspections).toBe(3);
  });

  it('with bindIp on, the IP passed is checked: another one is IP_MISMATCH', async () => {
    await app.saveLoginStrategy({ bindIp: true });
    const { client } = newClient();
    const { token } = await loggedIn();
    expect((await client.introspect(token, { ip: '10.0.0.5' })).active).toBe(true);
    expect(await client.introspect(token, { ip: '10.0.0.99' })).toEqual({ active: false, reason: 'IP_MISMATCH' });
  });

  it("an API key without sys:token:introspect is refused with the service's code, as is a revoked one", async () => {
    const { token } = await loggedIn();
    const weak = countingClient(url, { apiKey: (await createApiKey(app, ['sys:user:list'])).key }).client;
    const err = await weak.introspect(token).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LoginPolicyError);
    expect(err).toMatchObject({ code: 'FORBIDDEN', status: 403 });

    const doomedKey = await createApiKey(app, ['sys:token:introspect']);
    const doomed = countingClient(url, { apiKey: doomedKey.key }).client;
    expect((await doomed.introspect(token)).active).toBe(true);
    expect((await app.admin('/sys/apiKey/revoke', { id: doomedKey.id })).body.code).toBe('OK');
    // A fresh client: the first one's cached answer would hide the refusal for its TTL.
    const again = countingClient(url, { apiKey: doomedKey.key }).client;
    await expect(again.introspect(token)).rejects.toMatchObject({ code: 'NOT_LOGGED_IN', status: 401 });
  });
});
