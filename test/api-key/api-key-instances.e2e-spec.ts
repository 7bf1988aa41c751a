import { mariadbRedis } from '../support/backends';
import { NOT_LOGGED_IN, OK_NO_DATA } from '../support/envelopes';
import { startApp, TestApp } from '../support/test-app';

const page = { pageNum: 1, pageSize: 10 };

/**
 * Two instances on one MariaDB and one Redis (in this process, so that one of them can lose a
 * message): a key made on one works on the other at once, and a revocation on one holds on the
 * other within a second, by the pub/sub message or, when that is lost, by the stamp both compare.
 */
describe('API keys across two instances (mariadb+redis)', () => {
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    a = await startApp(mariadbRedis);
    b = await startApp(mariadbRedis, { provisioned: a.provisioned, clock: a.clock });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  const newKey = async () => {
    const res = await a.admin('/sys/apiKey/create', { name: `svc-${Date.now()}`, permissions: ['sys:user:list'] });
    expect(res.body.success).toBe(true);
    return res.body.data as { id: string; key: string };
  };
  const use = (app: TestApp, key: string) => app.post('/sys/user/list', page, { headers: { 'x-api-key': key } });

  /** How long until `b` refuses the key (ms), polling; fails past the limit. */
  async function refusedWithin(key: string, limitMs: number): Promise<number> {
    const started = Date.now();
    for (;;) {
      const res = await use(b, key);
      if (!res.body.success) {
        expect(res.body).toEqual(NOT_LOGGED_IN);
        return Date.now() - started;
      }
      if (Date.now() - started > limitMs) throw new Error(`B still accepts the revoked key after ${limitMs} ms`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  it('a key made on A works on B at once (B had refused a key a moment before)', async () => {
    expect((await use(b, `lps_${'B'.repeat(43)}`)).body).toEqual(NOT_LOGGED_IN);
    const { key } = await newKey();
    expect((await use(b, key)).body.success).toBe(true);
  });

  it('revoked on A, the key is refused on B within a second (the message)', async () => {
    const { id, key } = await newKey();
    expect((await use(b, key)).body.success).toBe(true);
    expect((await a.admin('/sys/apiKey/revoke', { id })).body).toEqual(OK_NO_DATA);
    expect(await refusedWithin(key, 1_000)).toBeLessThan(1_000);
  });

  it('revoked on A with the message lost, the key is still refused on B within a second (the stamp)', async () => {
    const { id, key } = await newKey();
    expect((await use(b, key)).body.success).toBe(true);
    const publish = jest.spyOn(a.store, 'publish').mockResolvedValue(undefined);
    try {
      expect((await a.admin('/sys/apiKey/revoke', { id })).body).toEqual(OK_NO_DATA);
      expect(publish).toHaveBeenCalledWith('API_KEY_REVOKED', id);
    } finally {
      publish.mockRestore();
    }
    expect((await use(a, key)).body).toEqual(NOT_LOGGED_IN);
    expect(await refusedWithin(key, 1_000)).toBeLessThan(1_000);
  });
});
