import fc from 'fast-check';

import { ErrorCode } from '../../src/common/error-code';
import { LoginStatus, LoginTypes } from '../../src/login-log/login-log.entity';
import { BACKENDS } from '../support/backends';
import { fieldErrorsOk } from '../support/field-errors';
import { Reply, startApp, TestApp } from '../support/test-app';

/**
 * Random input of the wrong shape over every POST operation but /sys/logout. Whatever arrives, the answer
 * is the API's envelope with a 4xx status, never a 5xx; input that happens to be valid may
 * succeed (200), nothing else.
 */
const RUNS = 100;

type Kind =
  | { type: 'string'; max?: number }
  | { type: 'int'; min?: number }
  | { type: 'bool' }
  | { type: 'enum'; values: string[] }
  | { type: 'date' }
  | { type: 'channels' }
  | { type: 'strings' };

interface Endpoint {
  path: string;
  admin: boolean;
  fields: Record<string, Kind>;
}

const ENDPOINTS: Endpoint[] = [
  {
    path: '/sys/login',
    admin: false,
    fields: {
      account: { type: 'string', max: 128 },
      password: { type: 'string', max: 1024 },
      imgId: { type: 'string', max: 64 },
      imgCode: { type: 'string', max: 16 },
    },
  },
  {
    path: '/sys/user/create',
    admin: true,
    fields: {
      username: { type: 'string', max: 64 },
      name: { type: 'string', max: 64 },
      mobile: { type: 'string', max: 21 },
      email: { type: 'string', max: 128 },
      password: { type: 'string', max: 1024 },
      roles: { type: 'strings' },
    },
  },
  {
    path: '/sys/strategy/login/save',
    admin: true,
    fields: {
      sessionExpireMinutes: { type: 'int' },
      tempSessionExpireMinutes: { type: 'int' },
      lockMinutes: { type: 'int' },
      maxFailureTimes: { type: 'int' },
      maxFailureInterval: { type: 'int' },
      sendMsgWhenErrorLogin: { type: 'channels' },
      sendMsgWhenErrorIp: { type: 'channels' },
      loginStrategyWhenExpire: { type: 'int' },
      bindIp: { type: 'bool' },
      multiOnline: { type: 'bool' },
    },
  },
  {
    path: '/sys/strategy/user/save',
    admin: true,
    fields: {
      passwordExpireDays: { type: 'int', min: 0 },
      expireNotifyDays: { type: 'int', min: 0 },
      minPasswordLength: { type: 'int', min: 0 },
      maxPasswordLength: { type: 'int', min: 0 },
      includeLowerCase: { type: 'bool' },
      includeUpperCase: { type: 'bool' },
      includeNumber: { type: 'bool' },
      includeSymbol: { type: 'bool' },
      forceUpdatePassword: { type: 'bool' },
    },
  },
  { path: '/sys/user/lock', admin: true, fields: { id: { type: 'string', max: 36 } } },
  { path: '/sys/user/resetPass', admin: true, fields: { id: { type: 'string', max: 36 } } },
  {
    path: '/sys/user/list',
    admin: true,
    fields: { pageNum: { type: 'int' }, pageSize: { type: 'int' }, keyword: { type: 'string', max: 64 } },
  },
  {
    path: '/sys/me/pass/update',
    admin: true,
    fields: { oldPass: { type: 'string', max: 1024 }, newPass: { type: 'string', max: 1024 } },
  },
  {
    path: '/sys/role/save',
    admin: true,
    fields: { code: { type: 'string', max: 64 }, name: { type: 'string', max: 64 }, permissions: { type: 'strings' } },
  },
  { path: '/auth/qrcode/verify', admin: false, fields: { code: { type: 'string', max: 64 } } },
  { path: '/sys/online/kickout', admin: true, fields: { tokenId: { type: 'string', max: 64 } } },
  {
    path: '/sys/message/list',
    admin: true,
    fields: { pageNum: { type: 'int' }, pageSize: { type: 'int' }, unreadOnly: { type: 'bool' } },
  },
  { path: '/sys/message/read', admin: true, fields: { ids: { type: 'strings' } } },
  {
    path: '/sys/auditLog/list',
    admin: true,
    fields: {
      pageNum: { type: 'int' },
      pageSize: { type: 'int' },
      action: { type: 'string', max: 64 },
      username: { type: 'string', max: 64 },
      target: { type: 'string', max: 128 },
    },
  },
  { path: '/sys/user/unlock', admin: true, fields: { id: { type: 'string', max: 36 } } },
  { path: '/sys/user/disable', admin: true, fields: { id: { type: 'string', max: 36 } } },
  { path: '/sys/user/enable', admin: true, fields: { id: { type: 'string', max: 36 } } },
  { path: '/sys/online/list', admin: true, fields: { pageNum: { type: 'int' }, pageSize: { type: 'int' } } },
  { path: '/sys/me/sessions', admin: true, fields: { pageNum: { type: 'int' }, pageSize: { type: 'int' } } },
  {
    path: '/sys/token/introspect',
    admin: true,
    fields: { token: { type: 'string', max: 256 }, ip: { type: 'string', max: 64 } },
  },
  { path: '/sys/me/sessions/kickout', admin: true, fields: { tokenId: { type: 'string', max: 64 } } },
  // Operations without input: every field is an unknown one. (/sys/logout is left out: a valid
  // random body, {}, would end the token the other cases use.)
  ...[
    '/sys/captcha',
    '/sys/publicKey',
    '/sys/me/info',
    '/sys/strategy/login/info',
    '/sys/strategy/user/info',
    '/sys/strategy/user/rules',
    '/sys/role/list',
    '/auth/qrcode/generate',
  ].map((path) => ({ path, admin: !['/sys/captcha', '/sys/publicKey'].includes(path), fields: {} })),
  {
    path: '/sys/loginLog/list',
    admin: true,
    fields: {
      pageNum: { type: 'int' },
      pageSize: { type: 'int' },
      account: { type: 'string', max: 128 },
      status: { type: 'enum', values: Object.values(LoginStatus) },
      loginType: { type: 'enum', values: Object.values(LoginTypes) },
      ip: { type: 'string', max: 64 },
      beginTime: { type: 'date' },
      endTime: { type: 'date' },
    },
  },
];

// Text of every kind: printable, any code point, and lone surrogate halves.
const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));
const text = (opts: { minLength?: number; maxLength?: number } = {}) =>
  fc.oneof(
    fc.string(opts),
    fc.string({ ...opts, unit: 'binary' }),
    fc.string({ ...opts, unit: fc.oneof(loneSurrogate, fc.string({ minLength: 1, maxLength: 1 })) }),
  );
const fraction = fc.double({ noNaN: true, noDefaultInfinity: true }).filter((d) => !Number.isInteger(d));
const notString = fc.oneof(
  fc.integer(),
  fraction,
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.jsonValue(), { maxLength: 3 }),
  fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 3 }),
);
const CHANNELS = /^\s*((email|sms|site)\s*(,\s*(email|sms|site)\s*)*)?$/;
const INSTANT = /^\d{4}-\d{2}-\d{2}/;

/** A value that no field of this kind accepts. */
function wrong(kind: Kind): fc.Arbitrary<unknown> {
  switch (kind.type) {
    case 'string':
      return kind.max
        ? fc.oneof(notString, fc.string({ minLength: kind.max + 1, maxLength: kind.max + 40 }))
        : notString;
    case 'int':
      // Every integer field here has a minimum of 1 (or the one given) and a maximum below 2,000,000.
      return fc.oneof(
        text(),
        fraction,
        fc.boolean(),
        fc.constant(null),
        fc.integer({ max: (kind.min ?? 1) - 1 }),
        fc.integer({ min: 2_000_000 }),
        fc.array(fc.integer(), { maxLength: 3 }),
        fc.dictionary(fc.string(), fc.integer(), { maxKeys: 2 }),
      );
    case 'bool':
      return fc.oneof(
        text(),
        fc.integer(),
        fc.constant(null),
        fc.array(fc.boolean(), { maxLength: 2 }),
        fc.dictionary(fc.string(), fc.boolean(), { maxKeys: 2 }),
      );
    case 'enum':
      return fc.oneof(
        notString,
        text().filter((s) => !kind.values.includes(s)),
      );
    case 'date':
      return fc.oneof(
        notString,
        text().filter((s) => !INSTANT.test(s)),
      );
    case 'channels':
      return fc.oneof(
        notString,
        text().filter((s) => !CHANNELS.test(s)),
      );
    case 'strings':
      return fc.oneof(
        text(),
        fc.integer(),
        fc.constant(null),
        fc.dictionary(fc.string(), fc.string(), { maxKeys: 2 }),
        fc.array(fc.oneof(fc.integer(), fc.constant(null), fc.boolean(), fc.array(fc.string())), {
          minLength: 1,
          maxLength: 3,
        }),
        fc.array(fc.constant('r'), { minLength: 201, maxLength: 210 }),
      );
  }
}

/** A value of the right type (which may still break a rule such as a length or a pattern). */
function plausible(kind: Kind): fc.Arbitrary<unknown> {
  switch (kind.type) {
    case 'string':
      return text({ maxLength: 40 });
    case 'int':
      return fc.integer({ min: -5, max: 100 });
    case 'bool':
      return fc.boolean();
    case 'enum':
      return fc.constantFrom(...kind.values);
    case 'date':
      return fc.constantFrom('2024-01-02', '2024-01-02T03:04:05Z', '2023-02-29', '2024-W01');
    case 'channels':
      return fc.constantFrom('', 'email', 'sms,site', 'email, sms');
    case 'strings':
      return fc.array(text({ maxLength: 10 }), { maxLength: 3 });
  }
}

/** A body that is wrong for sure: not an object, or an object with at least one wrong or unknown field. */
function wrongBody(e: Endpoint): fc.Arbitrary<unknown> {
  const names = Object.keys(e.fields);
  const others = fc.record(
    Object.fromEntries(names.map((n) => [n, plausible(e.fields[n])])) as Record<string, fc.Arbitrary<unknown>>,
    { requiredKeys: [] },
  );
  const unknownField = fc
    .tuple(
      fc.string({ minLength: 1, maxLength: 20 }).filter((k) => !names.includes(k)),
      fc.jsonValue(),
    )
    .map(([k, v]) => ({ [k]: v }));
  const oneWrong = names.length
    ? fc.oneof(
        fc.constantFrom(...names).chain((n) => wrong(e.fields[n]).map((v) => ({ [n]: v }))),
        unknownField,
      )
    : unknownField;
  return fc.oneof(
    { weight: 4, arbitrary: fc.tuple(others, oneWrong).map(([o, w]) => ({ ...o, ...w })) },
    {
      weight: 1,
      arbitrary: fc.oneof(fc.array(fc.jsonValue(), { maxLength: 4 }), text(), fc.integer(), fraction, fc.boolean()),
    },
  );
}

const CODES = new Set<string>(Object.values(ErrorCode));

function expectEnvelope(res: Reply, mayPass: boolean): void {
  expect(res.status).toBeLessThan(500);
  expect(Object.keys(res.body ?? {}).sort()).toEqual(['code', 'data', 'message', 'success']);
  expect(typeof res.body.message).toBe('string');
  expect(CODES.has(res.body.code)).toBe(true);
  if (res.status === 200) {
    expect(mayPass).toBe(true);
    expect(res.body).toMatchObject({ success: true, code: 'OK' });
  } else {
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.body.success).toBe(false);
    // VALIDATION_FAILED names the refused fields; every other failure keeps data: null.
    if (res.body.code === 'VALIDATION_FAILED') expect(fieldErrorsOk(res.body.data)).toBe(true);
    else expect(res.body.data).toBeNull();
    expect(res.body.message.length).toBeGreaterThan(0);
  }
}

describe.each(BACKENDS)('random input of the wrong shape on $name', (backend) => {
  let app: TestApp;
  let token: string;

  beforeAll(async () => {
    app = await startApp(backend);
    token = await app.adminToken();
  });
  afterAll(() => app.close());

  const send = (e: Endpoint, body: unknown, extra: { raw?: string; contentType?: string } = {}) =>
    app.post(e.path, body, { ...(e.admin ? { token } : {}), ip: '10.9.9.9', ...extra });

  describe.each(ENDPOINTS)('$path', (e) => {
    it('answers a body of the wrong shape with a 4xx envelope, and changes nothing', async () => {
      const usersBefore = Number((await app.db.query('SELECT COUNT(*) AS n FROM sys_user'))[0].n);
      const rolesBefore = await app.db.query('SELECT code, name FROM sys_role ORDER BY code');
      const propsBefore = await app.db.query(
        'SELECT prop_key, prop_value FROM sys_props ORDER BY prop_group, prop_key',
      );
      await fc.assert(
        fc.asyncProperty(wrongBody(e), async (body) => {
          const res = await send(e, body);
          expectEnvelope(res, false);
        }),
        { numRuns: RUNS },
      );
      expect(Number((await app.db.query('SELECT COUNT(*) AS n FROM sys_user'))[0].n)).toBe(usersBefore);
      expect(await app.db.query('SELECT prop_key, prop_value FROM sys_props ORDER BY prop_group, prop_key')).toEqual(
        propsBefore,
      );
      expect(await app.db.query('SELECT code, name FROM sys_role ORDER BY code')).toEqual(rolesBefore);
    });

    it('answers any JSON value, and any raw JSON or form text, with the envelope and never a 5xx', async () => {
      const raw = fc.oneof(
        fc.jsonValue().map((v) => ({ body: v, extra: {} })),
        text({ maxLength: 200 }).map((s) => ({ body: undefined, extra: { raw: s } })),
        text({ maxLength: 200 }).map((s) => ({
          body: undefined,
          extra: { raw: s, contentType: 'application/x-www-form-urlencoded' },
        })),
        fc
          .dictionary(fc.constantFrom(...Object.keys(e.fields), 'x'), text({ maxLength: 20 }), { maxKeys: 4 })
          .map((d) => ({
            body: undefined,
            extra: {
              raw: new URLSearchParams(d as Record<string, string>).toString(),
              contentType: 'application/x-www-form-urlencoded',
            },
          })),
      );
      await fc.assert(
        fc.asyncProperty(raw, async ({ body, extra }) => {
          const res = await send(e, body, extra);
          // A random body is almost never valid; when it is (e.g. {} for a list) it may succeed.
          expectEnvelope(res, true);
        }),
        { numRuns: RUNS },
      );
    });
  });
});
