import { createHash } from 'node:crypto';

import { createClient, RedisClientType } from 'redis';

import { stepAt, totpCode } from '../../src/mfa/totp';
import { ADMIN_PASSWORD, buildService, ClusterBackend, provisionCluster, ServiceNode } from '../cluster/cluster-node';
import { waitFor } from '../support/wait';
import { WebhookSink } from '../support/webhook-sink';

/*
 * What the built service writes while it runs, read as an operator's log shipper reads it: every
 * line a JSON object (stdout is a pipe here, so JSON without being asked), with one line per
 * request, and not one password, code, token, secret or encrypted password of a whole run in it
 * (headers and the stream ticket's query are logged, redacted).
 */

jest.setTimeout(180_000);

const USER_PASSWORD = 'Logged#Not1';
const NEW_PASSWORD = 'Changed#Not2';

describe('the log of a full run carries no secret (built service, MariaDB + Redis)', () => {
  let backend: ClusterBackend;
  let redis: RedisClientType;
  let node: ServiceNode;
  let output = '';
  const secrets = new Set<string>();
  const sms = new WebhookSink();

  beforeAll(async () => {
    await sms.start();
    const main = await buildService();
    backend = await provisionCluster();
    redis = createClient({ url: backend.redisUrl }) as RedisClientType;
    await redis.connect();
    node = await ServiceNode.start('L', main, {
      DATABASE_URL: backend.databaseUrl,
      REDIS_URL: backend.redisUrl,
      REDIS_KEY_PREFIX: backend.prefix,
      CAPTCHA_ENABLED: 'true',
      ADMIN_INITIAL_PASSWORD: ADMIN_PASSWORD,
      BCRYPT_COST: '4',
      TRUST_PROXY: 'true',
      // Every level: the lines a debugging operator would see must be as clean.
      LOG_LEVEL: 'verbose',
      SMS_WEBHOOK_URL: sms.url,
    });
    node.child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    node.child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await node.waitHealthy();
  });

  afterAll(async () => {
    await node?.stop();
    if (redis?.isOpen) {
      const keys: string[] = [];
      for await (const batch of redis.scanIterator({ MATCH: `${backend.prefix}*`, COUNT: 500 })) keys.push(...batch);
      if (keys.length) await redis.del(keys);
      await redis.close();
    }
    await backend?.dispose();
    await sms.stop();
  });

  /** Everything that travels in the run and must stay out of the log. */
  const keep = <T extends string | null | undefined>(value: T): T => {
    if (value) secrets.add(value);
    return value;
  };
  const encrypt = async (plain: string) => keep(await node.encrypt(keep(plain)));
  const captcha = async () => {
    const { imgId } = (await node.post('/sys/captcha')).body.data;
    const text = (await redis.get(`${backend.prefix}CAPTCHA:${imgId}`))!;
    expect(text).toBeTruthy();
    return { imgId, imgCode: keep(text) };
  };
  const login = async (account: string, password: string) => {
    const res = await node.post('/sys/login', { account, password: await encrypt(password), ...(await captcha()) });
    keep(res.body.data?.accessToken);
    keep(res.body.data?.mfaToken);
    return res;
  };
  const as =
    (token: string) =>
    (path: string, body: unknown = {}) =>
      node.post(path, body, { token });

  it('login, MFA enrolment, a TOTP and a recovery-code login, a reset, the own change, a logout', async () => {
    const adminLogin = await login('admin', ADMIN_PASSWORD);
    expect(adminLogin.body).toMatchObject({ success: true });
    const admin = as(adminLogin.body.data.accessToken);
    expect((await admin('/sys/strategy/login/save', { mfaMode: 1 })).body).toMatchObject({ success: true });

    const created = await admin('/sys/user/create', {
      username: 'logged_user',
      name: 'Logged',
      mobile: '13900001111',
      password: await encrypt(USER_PASSWORD),
      roles: [],
    });
    expect(created.body).toMatchObject({ success: true });
    const userId = created.body.data.id as string;
    // A wrong password, too: the failure's own lines.
    expect((await login('logged_user', 'Wrong#Pass9')).body.code).toBe('BAD_CREDENTIALS');

    // Enrolment: the secret, its otpauth URL, a code and the recovery codes.
    const first = await login('logged_user', USER_PASSWORD);
    expect(first.body).toMatchObject({ success: true, data: { mfaRequired: false } });
    const user = as(first.body.data.accessToken);
    const setup = await user('/sys/me/mfa/setup');
    expect(setup.body).toMatchObject({ success: true });
    const secret = keep(setup.body.data.secret as string);
    keep(setup.body.data.otpauthUrl);
    const step = stepAt(Date.now());
    const enabled = await user('/sys/me/mfa/enable', { code: keep(totpCode(secret, step)) });
    expect(enabled.body).toMatchObject({ success: true });
    const recoveryCodes = enabled.body.data.recoveryCodes as string[];
    recoveryCodes.forEach(keep);

    // A login with the next step's code (the enrolment used this one).
    const held = await login('logged_user', USER_PASSWORD);
    expect(held.body).toMatchObject({ success: true, data: { mfaRequired: true } });
    const done = await node.post('/sys/login/mfa', {
      mfaToken: held.body.data.mfaToken,
      code: keep(totpCode(secret, step + 1)),
    });
    expect(done.body).toMatchObject({ success: true, data: { mfaRequired: false } });
    const mfaSession = as(keep(done.body.data.accessToken));

    // The message stream's one-time ticket travels in the URL.
    const ticket = keep((await mfaSession('/sys/message/streamTicket')).body.data.ticket as string);
    const stream = new AbortController();
    const opened = await fetch(`${node.url}/sys/message/stream?ticket=${encodeURIComponent(ticket)}`, {
      signal: stream.signal,
    });
    expect(opened.status).toBe(200);
    stream.abort();

    // The administrator resets the password: generated, answered once.
    const reset = await admin('/sys/user/resetPass', { id: userId });
    expect(reset.body).toMatchObject({ success: true });
    const generated = keep(reset.body.data.password as string);

    // The generated password and a recovery code, then the user's own change.
    const afterReset = await login('logged_user', generated);
    expect(afterReset.body).toMatchObject({ success: true, data: { mfaRequired: true } });
    const recovered = await node.post('/sys/login/mfa', {
      mfaToken: afterReset.body.data.mfaToken,
      code: recoveryCodes[0],
    });
    expect(recovered.body).toMatchObject({ success: true });
    const changing = as(keep(recovered.body.data.accessToken));
    const changed = await changing('/sys/me/pass/update', {
      oldPass: await encrypt(generated),
      newPass: await encrypt(NEW_PASSWORD),
    });
    expect(changed.body).toMatchObject({ success: true });
    // An API key: answered once, then sent in each of its headers, and refused once revoked.
    const made = await admin('/sys/apiKey/create', { name: 'logged-service', permissions: ['sys:user:list'] });
    expect(made.body).toMatchObject({ success: true });
    const apiKey = keep(made.body.data.key as string);
    keep(createHash('sha256').update(apiKey).digest('hex'));
    const withKey = (headers: Record<string, string>) =>
      node.post('/sys/user/list', { pageNum: 1, pageSize: 1 }, { headers });
    expect((await withKey({ 'x-api-key': apiKey })).body).toMatchObject({ success: true });
    expect((await withKey({ authorization: `Bearer ${apiKey}` })).body).toMatchObject({ success: true });
    expect((await admin('/sys/apiKey/list')).body).toMatchObject({ success: true });
    expect((await admin('/sys/apiKey/revoke', { id: made.body.data.id })).body).toMatchObject({ success: true });
    expect((await withKey({ 'x-api-key': apiKey })).body).toMatchObject({ code: 'NOT_LOGGED_IN' });

    // One-time codes: a texted code, its stored hash, a reset attempt and a login with it stay out of the log.
    expect(
      (await admin('/sys/strategy/login/save', { otpLogin: true, mfaMode: 0 })).body.success &&
        (await admin('/sys/strategy/user/save', { selfServiceReset: true })).body.success,
    ).toBe(true);
    expect((await changing('/sys/logout')).body).toMatchObject({ success: true });
    expect((await admin('/sys/logout')).body).toMatchObject({ success: true });
    const textedCode = async (nth: number) => {
      const text = await waitFor(() => sms.accepted.filter((m) => m.to === '13900001111')[nth - 1], 'a texted code');
      return keep(/验证码是(\d{6})/.exec(text.text)![1]);
    };
    // One send a minute per account and recipient: the login code, which the reset then refuses (another purpose).
    const sent = await node.post('/sys/otp/send', {
      account: 'logged_user',
      channel: 'sms',
      purpose: 'login',
      ...(await captcha()),
    });
    expect(sent.body).toMatchObject({ success: true });
    keep(JSON.parse((await redis.get(`${backend.prefix}OTP_CODE:login:${userId}`))!).hash as string);
    const loginCode = await textedCode(1);
    const selfReset = await node.post('/sys/password/reset', {
      account: 'logged_user',
      code: loginCode,
      newPass: await encrypt('SelfReset#Not3'),
    });
    expect(selfReset.body).toMatchObject({ code: 'MFA_CODE_INVALID' });
    const byCode = await node.post('/sys/login/otp', { account: 'logged_user', code: loginCode });
    expect(byCode.body).toMatchObject({ success: true });
    keep(byCode.body.data.accessToken);

    // Everything the process wrote, up to its end.
    await node.stop();
    const lines = output.split('\n').filter((l) => l.trim() !== '');
    const entries = lines.map((line) => {
      try {
        return JSON.parse(line) as Record<string, any>;
      } catch {
        throw new Error(`not a JSON line: ${line}`);
      }
    });
    // Nest's own lines, ours and the requests', all through the one logger.
    expect(entries).toContainEqual(
      expect.objectContaining({ context: 'NestApplication', msg: 'Nest application successfully started' }),
    );
    expect(entries).toContainEqual(
      expect.objectContaining({ context: 'Bootstrap', msg: expect.stringContaining('started, listening on') }),
    );
    const requests = entries.filter((e) => e.req && e.res);
    expect(requests.map((e) => e.msg)).toEqual(
      expect.arrayContaining([
        'POST /sys/login 200',
        'POST /sys/login/mfa 200',
        'POST /sys/user/resetPass 200',
        'POST /sys/me/pass/update 200',
        'POST /sys/logout 200',
      ]),
    );
    // One line per request: Fastify's own request logging stays off.
    expect(requests.filter((e) => e.msg === 'POST /sys/user/resetPass 200')).toHaveLength(1);
    // The credentials' headers and the ticket are there, redacted.
    const resetLine = requests.find((e) => e.msg === 'POST /sys/user/resetPass 200')!;
    expect(resetLine.req.headers['admin-token']).toBe('[Redacted]');
    const keyLines = requests.filter((e) => e.msg === 'POST /sys/user/list 200' && !e.req.headers['admin-token']);
    expect(keyLines.map((e) => e.req.headers['x-api-key'] ?? e.req.headers.authorization)).toEqual([
      '[Redacted]',
      '[Redacted]',
    ]);
    expect(requests.find((e) => e.req.url.startsWith('/sys/message/stream?'))!.req.url).toBe(
      '/sys/message/stream?ticket=[Redacted]',
    );

    const found: string[] = [];
    for (const s of secrets) {
      // A six-digit code only as a whole (a process id or a duration may hold the digits).
      const pattern = /^\d+$/.test(s) ? new RegExp(`(?<![0-9A-Za-z])${s}(?![0-9A-Za-z])`) : null;
      if (pattern ? pattern.test(output) : output.includes(s) || output.includes(JSON.stringify(s).slice(1, -1)))
        found.push(s);
    }
    expect(secrets.size).toBeGreaterThan(25);
    expect(found).toEqual([]);
  });
});
