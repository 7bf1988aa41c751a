import { BACKENDS } from '../support/backends';
import { createActiveUser } from '../support/factories';
import { sha256hex, startApp, TestApp } from '../support/test-app';

/*
 * The online-sessions page finds a session by part of its user's name or of its IP, and marks the
 * caller's own session (`current`), so that nobody ends their own login by mistake.
 */
jest.setTimeout(120_000);

describe.each(BACKENDS)('online sessions: search and the caller’s own ($name)', (backend) => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startApp(backend);
  });
  afterAll(() => app?.close());

  it('keyword matches user name, name or IP (any case); current marks the caller’s session only', async () => {
    const zhang = await createActiveUser(app, { username: 'Zhang_Online' });
    const li = await createActiveUser(app, { username: 'li_online' });
    await app.token(zhang.username, zhang.password, { ip: '10.20.30.40' });
    await app.token(li.username, li.password, { ip: '10.99.0.1' });
    const adminToken = await app.adminToken();

    const list = (body: Record<string, unknown>) =>
      app.post('/sys/online/list', { pageNum: 1, pageSize: 50, ...body }, { token: adminToken, ip: '10.9.9.9' });

    const byName = await list({ keyword: 'zhang_ONLINE' });
    expect(byName.body.data.rows.map((r: any) => r.username)).toEqual(['Zhang_Online']);
    expect(byName.body.data.total).toBe(1);
    const byIp = await list({ keyword: '10.99.' });
    expect(byIp.body.data.rows.map((r: any) => r.username)).toEqual(['li_online']);
    expect((await list({ keyword: 'nobody-here' })).body.data).toEqual({ total: 0, rows: [] });

    const all = (await list({})).body.data.rows;
    const own = all.filter((r: any) => r.current);
    expect(own).toHaveLength(1);
    expect(own[0].tokenId).toBe(sha256hex(adminToken));
    expect(all.filter((r: any) => r.current === false).length).toBe(all.length - 1);
  });
});
