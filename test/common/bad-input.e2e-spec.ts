import { constants, createHash, generateKeyPairSync, publicEncrypt, randomBytes } from 'node:crypto';

import { TEXTS } from '../../src/common/texts';
import { BACKENDS } from '../support/backends';
import { BAD_CREDENTIALS } from '../support/envelopes';
import { createUser, TestUser } from '../support/factories';
import { fieldErrorsOk } from '../support/field-errors';
import { ADMIN_PASSWORD, CallOptions, Reply, startApp, TestApp } from '../support/test-app';

/**
 * Whatever a client sends, the answer is a 4xx in the envelope
 * { success: false, code, message, data } — VALIDATION_FAILED (data.errors naming the fields) for malformed,
 * missing, wrongly typed, unknown or out-of-range input — never a 5xx, and nothing changes.
 */

// The HTTP status of each code these cases can end in.
const STATUS: Record<string, number> = {
  VALIDATION_FAILED: 400,
  QRCODE_INVALID: 400,
  NOT_FOUND: 404,
  BAD_CREDENTIALS: 401,
  FORBIDDEN: 403,
};

type FieldType = 'string' | 'password' | 'int' | 'bool' | 'array' | 'enum' | 'date';

interface Field {
  type: FieldType;
  required?: boolean;
  /** The documented answer to a unicode value in this field; absent: unicode text is valid there. */
  unicode?: string;
}

/** What a case needs that only exists once the app runs: ciphertexts under its key, a victim user. */
interface Ctx {
  adminPass: string;
  newPass: string;
  userPass: string;
  victim: TestUser;
  /** tokenId (sha256 of the token) of a session of the victim, and of a second session of the admin. */
  victimTokenId: string;
  adminOtherTokenId: string;
  /** A QR code the admin generated and nobody has used. */
  qrCode: string;
}

interface Endpoint {
  path: string;
  fields: Record<string, Field>;
  /** A body the endpoint would accept: every case below breaks it in exactly one way. */
  valid: (c: Ctx) => Record<string, unknown>;
}

const NO_INPUT = { fields: {}, valid: () => ({}) };
const PAGING: Record<string, Field> = { pageNum: { type: 'int' }, pageSize: { type: 'int' } };
const BY_ID: Record<string, Field> = { id: { type: 'string', required: true, unicode: 'NOT_FOUND' } };
const INT = { type: 'int' } as const;
const BOOL = { type: 'bool' } as const;
const CHANNELS: Field = { type: 'string', unicode: 'VALIDATION_FAILED' };
const MFA_CODE_FIELD: Field = { type: 'string', required: true, unicode: 'VALIDATION_FAILED' };

// Every operation of the controllers under src/.
const ENDPOINTS: Endpoint[] = [
  {
    path: '/sys/login',
    fields: {
      account: { type: 'string', required: true },
      password: { type: 'password', required: true, unicode: 'VALIDATION_FAILED' },
      imgId: { type: 'string' },
      imgCode: { type: 'string' },
    },
    valid: (c) => ({ account: 'admin', password: c.adminPass, imgId: 'img-1', imgCode: 'abcd' }),
  },
  { path: '/sys/logout', ...NO_INPUT },
  { path: '/sys/publicKey', ...NO_INPUT },
  { path: '/sys/captcha', ...NO_INPUT },
  { path: '/sys/me/info', ...NO_INPUT },
  {
    path: '/sys/me/pass/update',
    fields: {
      oldPass: { type: 'password', required: true, unicode: 'VALIDATION_FAILED' },
      newPass: { type: 'password', required: true, unicode: 'VALIDATION_FAILED' },
    },
    valid: (c) => ({ oldPass: c.adminPass, newPass: c.newPass }),
  },
  { path: '/sys/strategy/login/info', ...NO_INPUT },
  {
    path: '/sys/strategy/login/save',
    fields: {
      sessionExpireMinutes: INT,
      tempSessionExpireMinutes: INT,
      lockMinutes: INT,
      maxFailureTimes: INT,
      maxFailureInterval: INT,
      sendMsgWhenErrorLogin: CHANNELS,
      sendMsgWhenErrorIp: CHANNELS,
      loginStrategyWhenExpire: INT,
      bindIp: BOOL,
      multiOnline: BOOL,
      mfaMode: INT,
    },
    valid: () => ({
      sessionExpireMinutes: 45,
      sendMsgWhenErrorLogin: 'email,site',
      sendMsgWhenErrorIp: 'sms',
      multiOnline: false,
    }),
  },
  { path: '/sys/strategy/user/info', ...NO_INPUT },
  {
    path: '/sys/strategy/user/save',
    fields: {
      passwordExpireDays: INT,
      expireNotifyDays: INT,
      minPasswordLength: INT,
      maxPasswordLength: INT,
      includeLowerCase: BOOL,
      includeUpperCase: BOOL,
      includeNumber: BOOL,
      includeSymbol: BOOL,
      forceUpdatePassword: BOOL,
    },
    valid: () => ({ minPasswordLength: 8, includeUpperCase: true }),
  },
  { path: '/sys/strategy/user/rules', ...NO_INPUT },
  {
    path: '/sys/user/create',
    fields: {
      username: { type: 'string', required: true, unicode: 'VALIDATION_FAILED' },
      name: { type: 'string', required: true },
      mobile: { type: 'string', unicode: 'VALIDATION_FAILED' },
      email: { type: 'string', unicode: 'VALIDATION_FAILED' },
      password: { type: 'password', unicode: 'VALIDATION_FAILED' },
      roles: { type: 'array', unicode: 'VALIDATION_FAILED' },
    },
    valid: (c) => ({
      username: 'bad_input_never',
      name: 'Never',
      mobile: '13900000000',
      email: 'never@example.com',
      password: c.userPass,
      roles: [],
    }),
  },
  {
    path: '/sys/user/list',
    fields: { ...PAGING, keyword: { type: 'string' } },
    valid: () => ({ pageNum: 1, pageSize: 10, keyword: 'a' }),
  },
  ...['lock', 'unlock', 'disable', 'enable', 'resetPass'].map((op) => ({
    path: `/sys/user/${op}`,
    fields: BY_ID,
    valid: (c: Ctx) => ({ id: c.victim.id }),
  })),
  {
    path: '/sys/role/save',
    fields: {
      code: { type: 'string', required: true, unicode: 'VALIDATION_FAILED' },
      name: { type: 'string', required: true },
      permissions: { type: 'array', required: true },
    },
    valid: () => ({ code: 'bad_input_role', name: 'Never', permissions: ['sys:user:list'] }),
  },
  { path: '/sys/role/list', ...NO_INPUT },
  // The second factor. No case reaches a code check (a wrong code would count toward the lock).
  {
    path: '/sys/login/mfa',
    fields: { mfaToken: { type: 'string', required: true, unicode: 'VALIDATION_FAILED' }, code: MFA_CODE_FIELD },
    valid: () => ({ mfaToken: 'x'.repeat(43), code: '123456' }),
  },
  { path: '/sys/me/mfa/setup', ...NO_INPUT },
  ...['enable', 'disable', 'recoveryCodes'].map((op) => ({
    path: `/sys/me/mfa/${op}`,
    fields: { code: MFA_CODE_FIELD },
    valid: () => ({ code: '123456' }),
  })),
  { path: '/sys/user/mfa/reset', fields: BY_ID, valid: (c: Ctx) => ({ id: c.victim.id }) },
  { path: '/auth/qrcode/generate', ...NO_INPUT },
  {
    path: '/auth/qrcode/verify',
    fields: { code: { type: 'string', required: true, unicode: 'QRCODE_INVALID' } },
    valid: (c) => ({ code: c.qrCode }),
  },
  { path: '/sys/online/list', fields: PAGING, valid: () => ({ pageNum: 1, pageSize: 10 }) },
  {
    path: '/sys/online/kickout',
    fields: { tokenId: { type: 'string', required: true, unicode: 'VALIDATION_FAILED' } },
    valid: (c) => ({ tokenId: c.victimTokenId }),
  },
  {
    path: '/sys/token/introspect',
    // Any other text is a token like any other (NOT_LOGGED_IN in an OK answer); an ip must be an address.
    fields: { token: { type: 'string', required: true }, ip: { type: 'string', unicode: 'VALIDATION_FAILED' } },
    valid: () => ({ token: 'no-such-token', ip: '10.0.0.1' }),
  },
  { path: '/sys/me/sessions', fields: PAGING, valid: () => ({ pageNum: 1, pageSize: 10 }) },
  {
    path: '/sys/me/sessions/kickout',
    fields: { tokenId: { type: 'string', required: true, unicode: 'VALIDATION_FAILED' } },
    valid: (c) => ({ tokenId: c.adminOtherTokenId }),
  },
  {
    path: '/sys/message/list',
    fields: { ...PAGING, unreadOnly: BOOL },
    valid: () => ({ pageNum: 1, pageSize: 10, unreadOnly: true }),
  },
  {
    path: '/sys/message/read',
    fields: { ids: { type: 'array', required: true } },
    valid: () => ({ ids: ['00000000-0000-0000-0000-000000000000'] }),
  },
  {
    path: '/sys/loginLog/list',
    fields: {
      ...PAGING,
      account: { type: 'string' },
      status: { type: 'enum', unicode: 'VALIDATION_FAILED' },
      loginType: { type: 'enum', unicode: 'VALIDATION_FAILED' },
      ip: { type: 'string' },
      beginTime: { type: 'date', unicode: 'VALIDATION_FAILED' },
      endTime: { type: 'date', unicode: 'VALIDATION_FAILED' },
    },
    valid: () => ({
      pageNum: 1,
      pageSize: 10,
      account: 'admin',
      status: 'success',
      loginType: 'account',
      ip: '10.9.9.9',
      beginTime: '2020-01-01T00:00:00Z',
      endTime: '2030-01-01T00:00:00.000Z',
    }),
  },
];

const WRONG_TYPES: Record<FieldType, unknown[]> = {
  string: [123, true, {}, ['a'], null],
  password: [123, true, {}, ['a'], null],
  int: ['30', 1.5, -1, 1e20, true, [1], {}, null],
  bool: [1, 0, 'true', null, [], {}],
  array: ['a', {}, [1], [null], [['a']], { 0: 'a' }, null],
  enum: ['SUCCESS', 'nope', 1, ['success'], null],
  // '2024-W01' is ISO 8601 but names no instant; '2024-13-45' is no date at all.
  date: ['yesterday', 1700000000000, '2024-13-45', '2023-02-29', '2024-W01', '2024-001', '+010000-01-01', true, null],
};

/** Stands in for the real context when only the number of cases matters. */
const FAKE_CTX: Ctx = {
  adminPass: 'x',
  newPass: 'x',
  userPass: 'x',
  victim: { id: 'x', username: 'x', password: 'x', mobile: 'x', email: 'x' },
  victimTokenId: 'x',
  adminOtherTokenId: 'x',
  qrCode: 'x',
};

const UNICODE = '张三😀\u202eabc\u0301';
const HUGE = 'x'.repeat(60_000);
const OVERSIZED = 70 * 1024;

interface Case {
  label: string;
  body?: unknown;
  raw?: string;
  contentType?: string;
  code: string;
  /** The message must name this field ("names the field and the rule"). */
  field?: string;
}

const omit = (o: Record<string, unknown>, key: string) =>
  Object.fromEntries(Object.entries(o).filter(([k]) => k !== key));
const show = (v: unknown) =>
  typeof v === 'string' && v.length > 40 ? `${v.slice(0, 20)}…(${v.length})` : JSON.stringify(v);
/** The valid body as JSON with one more member spliced in raw (for nesting too deep to build as objects). */
const withRawMember = (valid: Record<string, unknown>, name: string, rawValue: string) => {
  const json = JSON.stringify(valid);
  return `${json.slice(0, -1)}${json === '{}' ? '' : ','}"${name}":${rawValue}}`;
};

function missingCases(e: Endpoint, valid: Record<string, unknown>): Case[] {
  const required = Object.keys(e.fields).filter((f) => e.fields[f].required);
  if (!required.length) return [];
  return [
    ...required.map((f) => ({ label: `without ${f}`, body: omit(valid, f), code: 'VALIDATION_FAILED', field: f })),
    { label: '{}', body: {}, code: 'VALIDATION_FAILED', field: required[0] },
    { label: 'empty body', raw: '', code: 'VALIDATION_FAILED', field: required[0] },
    {
      label: 'empty form body',
      raw: '',
      contentType: 'application/x-www-form-urlencoded',
      code: 'VALIDATION_FAILED',
      field: required[0],
    },
  ];
}

function wrongTypeCases(e: Endpoint, valid: Record<string, unknown>): Case[] {
  return Object.entries(e.fields).flatMap(([f, { type }]) =>
    WRONG_TYPES[type].map((v) => ({
      label: `${f}: ${show(v)}`,
      body: { ...valid, [f]: v },
      code: 'VALIDATION_FAILED',
      field: f,
    })),
  );
}

function unknownFieldCases(e: Endpoint, valid: Record<string, unknown>): Case[] {
  const first = Object.keys(e.fields)[0];
  return [
    { label: 'bogus: 1', body: { ...valid, bogus: 1 }, code: 'VALIDATION_FAILED', field: 'bogus' },
    { label: 'isAdmin: true', body: { ...valid, isAdmin: true }, code: 'VALIDATION_FAILED', field: 'isAdmin' },
    { label: 'bogus: null', body: { ...valid, bogus: null }, code: 'VALIDATION_FAILED', field: 'bogus' },
    ...(first
      ? [
          {
            label: `${first.toUpperCase()} (case differs)`,
            body: { ...omit(valid, first), [first.toUpperCase()]: valid[first] ?? 1 },
            code: 'VALIDATION_FAILED',
          },
        ]
      : []),
    { label: 'constructor', raw: withRawMember(valid, 'constructor', '{"name":"x"}'), code: 'VALIDATION_FAILED' },
    { label: '__proto__', raw: withRawMember(valid, '__proto__', '{"isAdmin":true}'), code: 'VALIDATION_FAILED' },
    { label: 'valueOf: false', body: { ...valid, valueOf: false }, code: 'VALIDATION_FAILED', field: 'valueOf' },
    { label: 'toString: "x"', body: { ...valid, toString: 'x' }, code: 'VALIDATION_FAILED', field: 'toString' },
    { label: 'prototype: []', body: { ...valid, prototype: [] }, code: 'VALIDATION_FAILED', field: 'prototype' },
    {
      label: 'constructor.prototype',
      raw: withRawMember(valid, 'constructor', '{"prototype":{"isAdmin":true}}'),
      code: 'VALIDATION_FAILED',
    },
    {
      label: 'form bogus=1',
      raw: 'bogus=1',
      contentType: 'application/x-www-form-urlencoded',
      code: 'VALIDATION_FAILED',
      field: 'bogus',
    },
  ];
}

/**
 * A body that is not a JSON object is refused on every operation, naming
 * `body`, even where an empty object would do (JSON null was once taken for `{}`).
 */
function nonObjectCases(valid: Record<string, unknown>): Case[] {
  return [
    { label: 'JSON null', raw: 'null', code: 'VALIDATION_FAILED', field: 'body' },
    { label: '[]', raw: '[]', code: 'VALIDATION_FAILED', field: 'body' },
    { label: '[valid body]', body: [valid], code: 'VALIDATION_FAILED', field: 'body' },
    { label: 'JSON string', raw: '"hello"', code: 'VALIDATION_FAILED', field: 'body' },
    { label: 'JSON string "x"', raw: '"x"', code: 'VALIDATION_FAILED', field: 'body' },
    {
      label: 'JSON string of the valid body',
      raw: JSON.stringify(JSON.stringify(valid)),
      code: 'VALIDATION_FAILED',
      field: 'body',
    },
    { label: 'JSON number', raw: '42', code: 'VALIDATION_FAILED', field: 'body' },
    { label: 'JSON true', raw: 'true', code: 'VALIDATION_FAILED', field: 'body' },
  ];
}

function invalidJsonCases(valid: Record<string, unknown>): Case[] {
  const json = JSON.stringify(valid);
  return [
    { label: 'truncated', raw: json.slice(0, -1), code: 'VALIDATION_FAILED' },
    { label: 'trailing garbage', raw: `${json}}`, code: 'VALIDATION_FAILED' },
    { label: 'single quotes', raw: "{'a':1}", code: 'VALIDATION_FAILED' },
    {
      label: 'trailing comma',
      raw: `${json.slice(0, -1)}${json === '{}' ? '' : ','}"a":1,}`,
      code: 'VALIDATION_FAILED',
    },
    { label: 'NaN', raw: '{"a":NaN}', code: 'VALIDATION_FAILED' },
    { label: 'undefined', raw: 'undefined', code: 'VALIDATION_FAILED' },
    { label: 'bad escape', raw: '{"a":"\\u12"}', code: 'VALIDATION_FAILED' },
    { label: 'NUL', raw: '\u0000', code: 'VALIDATION_FAILED' },
    { label: 'JSON as text/plain', raw: json, contentType: 'text/plain', code: 'VALIDATION_FAILED' },
    { label: 'JSON as application/xml', raw: json, contentType: 'application/xml', code: 'VALIDATION_FAILED' },
  ];
}

function oversizedCases(e: Endpoint, valid: Record<string, unknown>): Case[] {
  const stringField = Object.keys(e.fields).find((f) => ['string', 'password'].includes(e.fields[f].type));
  return [
    { label: 'bogus of 70 KiB', body: { ...valid, bogus: 'a'.repeat(OVERSIZED) }, code: 'VALIDATION_FAILED' },
    { label: '70 KiB of spaces', raw: `${' '.repeat(OVERSIZED)}${JSON.stringify(valid)}`, code: 'VALIDATION_FAILED' },
    {
      label: 'form of 70 KiB',
      raw: `bogus=${'a'.repeat(OVERSIZED)}`,
      contentType: 'application/x-www-form-urlencoded',
      code: 'VALIDATION_FAILED',
    },
    ...(stringField
      ? [
          {
            label: `${stringField} of 70 KiB`,
            body: { ...valid, [stringField]: 'a'.repeat(OVERSIZED) },
            code: 'VALIDATION_FAILED',
          },
        ]
      : []),
  ];
}

function deepCases(e: Endpoint, valid: Record<string, unknown>): Case[] {
  const arrays = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
  const objects = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
  const first = Object.keys(e.fields)[0];
  return [
    {
      label: 'bogus: 25000 nested arrays',
      raw: withRawMember(valid, 'bogus', arrays(25_000)),
      code: 'VALIDATION_FAILED',
    },
    {
      label: 'bogus: 9000 nested objects',
      raw: withRawMember(valid, 'bogus', objects(9_000)),
      code: 'VALIDATION_FAILED',
    },
    { label: 'body of 30000 nested arrays', raw: arrays(30_000), code: 'VALIDATION_FAILED' },
    ...(first
      ? [
          {
            label: `${first}: 25000 nested arrays`,
            raw: withRawMember(omit(valid, first), first, arrays(25_000)),
            code: 'VALIDATION_FAILED',
          },
          {
            label: `${first}: 9000 nested objects`,
            raw: withRawMember(omit(valid, first), first, objects(9_000)),
            code: 'VALIDATION_FAILED',
          },
        ]
      : []),
  ];
}

function hugeCases(e: Endpoint, valid: Record<string, unknown>): Case[] {
  const cases: Case[] = [{ label: 'bogus of 60000 chars', body: { ...valid, bogus: HUGE }, code: 'VALIDATION_FAILED' }];
  for (const [f, { type }] of Object.entries(e.fields)) {
    if (type === 'array') {
      cases.push({
        label: `${f}: [60000 chars]`,
        body: { ...valid, [f]: [HUGE] },
        code: 'VALIDATION_FAILED',
        field: f,
      });
      cases.push({
        label: `${f}: 12000 items`,
        body: { ...valid, [f]: Array(12_000).fill('ab') },
        code: 'VALIDATION_FAILED',
        field: f,
      });
    } else if (type !== 'int' && type !== 'bool') {
      cases.push({ label: `${f} of 60000 chars`, body: { ...valid, [f]: HUGE }, code: 'VALIDATION_FAILED', field: f });
    } else {
      cases.push({
        label: `${f}: 60000 digits`,
        raw: withRawMember(omit(valid, f), f, '9'.repeat(60_000)),
        code: 'VALIDATION_FAILED',
        field: f,
      });
    }
  }
  return cases;
}

function unicodeCases(e: Endpoint, valid: Record<string, unknown>): Case[] {
  return Object.entries(e.fields)
    .filter(([, f]) => f.unicode)
    .map(([f, { type, unicode }]) => ({
      label: `${f}: unicode`,
      body: { ...valid, [f]: type === 'array' ? [UNICODE] : UNICODE },
      code: unicode!,
      field: unicode === 'VALIDATION_FAILED' ? f : undefined,
    }));
}

/** Half a surrogate pair is not Unicode text: refused in every text field, never stored mangled. */
function illFormedCases(e: Endpoint, valid: Record<string, unknown>): Case[] {
  return Object.entries(e.fields)
    .filter(([, f]) => f.type !== 'int' && f.type !== 'bool')
    .flatMap(([f, { type }]) =>
      ['ab\ud800cd', '\udc00'].map((text) => ({
        label: `${f}: ${JSON.stringify(text)}`,
        body: { ...valid, [f]: type === 'array' ? [text] : text },
        code: 'VALIDATION_FAILED',
        field: f,
      })),
    );
}

describe.each(BACKENDS)('bad input on $name', (backend) => {
  let app: TestApp;
  let token: string;
  let adminId: string;
  let ctx: Ctx;
  /** Non-decryptable password values: wrong format, wrong key, wrong padding, plain text. */
  let undecryptable: [string, string][];

  beforeAll(async () => {
    app = await startApp(backend);
    token = await app.token('admin', ADMIN_PASSWORD, { ip: '10.9.9.9' });
    adminId = (await app.post('/sys/me/info', {}, { token })).body.data.id;
    const victim = await createUser(app, { name: 'Victim' });
    ctx = {
      adminPass: await app.encrypt(ADMIN_PASSWORD),
      newPass: await app.encrypt('Brand#New1'),
      userPass: await app.encrypt('Passw0rd!x'),
      victim,
      victimTokenId: sha256(await app.token(victim.username, victim.password)),
      adminOtherTokenId: sha256(await app.token('admin', ADMIN_PASSWORD, { ip: '10.9.9.9' })),
      qrCode: (await app.post('/auth/qrcode/generate', {}, { token, ip: '10.9.9.9' })).body.data.code,
    };
    const servicePem = (await app.post('/sys/publicKey')).body.data.publicKey as string;
    const otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey;
    const plain = Buffer.from(ADMIN_PASSWORD);
    const right = ctx.adminPass;
    undecryptable = [
      ['plain text', ADMIN_PASSWORD],
      ['plain text that looks like base64', 'Password1'],
      ['empty', ''],
      ['not base64', '%%%%'],
      ['short base64', 'AAAA'],
      ['random 256 bytes', randomBytes(256).toString('base64')],
      ['truncated ciphertext', right.slice(0, 200)],
      ['ciphertext with a flipped byte', flipByte(right)],
      [
        'ciphertext under another key',
        publicEncrypt({ key: otherKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, plain).toString(
          'base64',
        ),
      ],
      [
        'RSA-OAEP with SHA-1',
        publicEncrypt({ key: servicePem, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha1' }, plain).toString(
          'base64',
        ),
      ],
      [
        'PKCS#1 v1.5 padding',
        publicEncrypt({ key: servicePem, padding: constants.RSA_PKCS1_PADDING }, plain).toString('base64'),
      ],
      ['two ciphertexts', right + right],
      ['base64 of 1100 chars', 'A'.repeat(1100)],
    ];
  });
  afterAll(() => app.close());

  const send = (path: string, c: Pick<Case, 'body' | 'raw' | 'contentType'>, opts: CallOptions = {}) =>
    app.post(path, c.raw === undefined ? c.body : undefined, {
      token,
      ip: '10.9.9.9',
      raw: c.raw,
      contentType: c.contentType,
      ...opts,
    });

  /** Everything a refused request must leave as it was. */
  async function snapshot() {
    const q = (sql: string) => app.db.query(sql);
    return {
      users: await q('SELECT * FROM sys_user ORDER BY id'),
      userRoles: await q('SELECT * FROM sys_user_role ORDER BY user_id, role_code'),
      roles: await q('SELECT * FROM sys_role ORDER BY code'),
      props: await q('SELECT * FROM sys_props ORDER BY prop_group, prop_key'),
      loginLogs: Number((await q('SELECT COUNT(*) AS n FROM sys_login_log'))[0].n),
      adminSessions: (await app.store.sMembers(`AUTH_USER_TOKENS:${adminId}`)).sort(),
      victimSessions: (await app.store.sMembers(`AUTH_USER_TOKENS:${ctx.victim.id}`)).sort(),
      qrCode: await app.store.get(`AUTH_QRCODE:${ctx.qrCode}`),
      loginStrategy: (await app.post('/sys/strategy/login/info', {}, { token })).body,
      userStrategy: (await app.post('/sys/strategy/user/info', {}, { token })).body,
    };
  }

  /** The zh labels a message may name a field by: its own, or one its operation gives it (texts.ts). */
  const labelsOf = (field: string) => {
    const labels = Object.entries(TEXTS.field)
      .filter(([key]) => key === field || key.endsWith(`.${field}`))
      .map(([, label]) => label.zh);
    // A field no operation takes has no label: its refusal quotes the name as sent.
    return labels.length ? labels : [field];
  };

  /** Sends every case and returns a line for each answer that is not the expected refusal. */
  async function problemsOf(path: string, cases: Case[], as = token): Promise<string[]> {
    const problems: string[] = [];
    for (const c of cases) {
      let res: Reply;
      try {
        res = await send(path, c, { token: as });
      } catch (err) {
        problems.push(`${c.label}: answer is not JSON (${(err as Error).message})`);
        continue;
      }
      const shapeOk =
        res.body &&
        Object.keys(res.body).sort().join() === 'code,data,message,success' &&
        res.body.success === false &&
        typeof res.body.message === 'string' &&
        res.body.message !== '' &&
        // VALIDATION_FAILED names the refused fields in data.errors; other failures keep data: null.
        (c.code === 'VALIDATION_FAILED' ? fieldErrorsOk(res.body.data) : res.body.data === null);
      // A refusal of the whole body says so in words ("请求体…") rather than by the name `body`; a field
      // is named by its label (姓名, not name).
      const named = c.field === 'body' || labelsOf(c.field ?? '').some((l) => res.body?.message?.includes(l));
      const fieldOk = !c.field || (named && fieldErrorsOk(res.body.data, c.field));
      if (res.status !== STATUS[c.code] || res.body?.code !== c.code || !shapeOk || !fieldOk) {
        problems.push(
          `${c.label}: expected ${STATUS[c.code]} ${c.code}${c.field ? ` naming ${c.field}` : ''}, got ${res.status} ${JSON.stringify(res.body).slice(0, 160)}`,
        );
      }
    }
    return problems;
  }

  describe.each(ENDPOINTS)('$path', (endpoint) => {
    const categories: [string, (v: Record<string, unknown>) => Case[]][] = [
      ['missing required fields', (v) => missingCases(endpoint, v)],
      ['wrong types and out-of-range values', (v) => wrongTypeCases(endpoint, v)],
      ['unknown fields', (v) => unknownFieldCases(endpoint, v)],
      ['a body that is not a JSON object', (v) => nonObjectCases(v)],
      ['invalid JSON and other media types', (v) => invalidJsonCases(v)],
      ['a body over 64 KiB', (v) => oversizedCases(endpoint, v)],
      ['deep nesting', (v) => deepCases(endpoint, v)],
      ['huge strings, numbers and arrays', (v) => hugeCases(endpoint, v)],
      ['unicode where the field does not allow it', (v) => unicodeCases(endpoint, v)],
      ['text that is not well-formed Unicode', (v) => illFormedCases(endpoint, v)],
    ];
    const categoriesHere = categories.filter(([, build]) => build(endpoint.valid(FAKE_CTX)).length > 0);

    it.each(categoriesHere)('refuses %s with a 4xx envelope and changes nothing', async (_name, build) => {
      const cases = build(endpoint.valid(ctx));
      const before = await snapshot();
      expect(await problemsOf(endpoint.path, cases)).toEqual([]);
      expect(await snapshot()).toEqual(before);
    });

    const passwordFields = Object.keys(endpoint.fields).filter((f) => endpoint.fields[f].type === 'password');
    if (passwordFields.length) {
      it.each(passwordFields)('refuses a %s that does not decrypt with VALIDATION_FAILED naming it', async (field) => {
        const valid = endpoint.valid(ctx);
        const cases = undecryptable.map(([label, value]) => ({
          label,
          body: { ...valid, [field]: value },
          code: 'VALIDATION_FAILED',
          field,
        }));
        const before = await snapshot();
        expect(await problemsOf(endpoint.path, cases)).toEqual([]);
        expect(await snapshot()).toEqual(before);
      });
    }
  });

  describe('operations without input', () => {
    const noInput = ENDPOINTS.filter((e) => Object.keys(e.fields).length === 0).map((e) => e.path);

    it.each(noInput)('%s accepts {}, an empty body and no body at all', async (path) => {
      // Logout ends the token it is given, so it gets a fresh one for every call.
      const tokenFor = async () =>
        path === '/sys/logout' ? app.token('admin', ADMIN_PASSWORD, { ip: '10.9.9.9' }) : token;
      const answers: Reply[] = [];
      answers.push(await app.post(path, {}, { token: await tokenFor(), ip: '10.9.9.9' }));
      answers.push(await app.post(path, undefined, { token: await tokenFor(), ip: '10.9.9.9', raw: '' }));
      const bare = await app.app.inject({
        method: 'POST',
        url: path,
        headers: { 'admin-token': await tokenFor(), 'x-forwarded-for': '10.9.9.9' },
      });
      answers.push({ status: bare.statusCode, body: bare.json(), headers: bare.headers });
      for (const res of answers) {
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ success: true, code: 'OK' });
      }
    });

    it('a refused logout leaves the token alive', async () => {
      const own = await app.token('admin', ADMIN_PASSWORD, { ip: '10.9.9.9' });
      const res = await app.post('/sys/logout', { bogus: 1 }, { token: own, ip: '10.9.9.9' });
      expect(res.body.code).toBe('VALIDATION_FAILED');
      expect((await app.post('/sys/me/info', {}, { token: own, ip: '10.9.9.9' })).body.success).toBe(true);
      await app.post('/sys/logout', {}, { token: own, ip: '10.9.9.9' });
    });
  });

  it('/sys/loginLog/list takes any calendar date or date-time in the range a database can hold', async () => {
    for (const [beginTime, endTime] of [
      ['0001-01-01T00:00:00Z', '9999-12-31T23:59:59.999Z'],
      ['2020-01-01', '2030-01-01'],
      ['2024-06-01T12:00:00+08:00', '2024-06-01T12:00:00.123456789Z'],
    ]) {
      const res = await app.post(
        '/sys/loginLog/list',
        { pageNum: 1, pageSize: 10, beginTime, endTime },
        { token, ip: '10.9.9.9' },
      );
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        success: true,
        code: 'OK',
        data: { total: expect.any(Number), rows: expect.any(Array) },
      });
    }
  });

  describe('unknown paths', () => {
    it.each([
      ['POST', '/sys/nope'],
      ['POST', '/sys/user/list/extra'],
      ['POST', '/sys/user'],
      ['POST', '/'],
      ['GET', '/sys/login'],
      ['PUT', '/sys/strategy/login/save'],
      ['DELETE', '/sys/user/list'],
    ] as const)('%s %s is NOT_FOUND 404 in the envelope, with or without a token', async (method, url) => {
      for (const headers of [{}, { 'admin-token': token }]) {
        const res = await app.app.inject({
          method,
          url,
          headers: { 'content-type': 'application/json', ...headers },
          payload: method === 'GET' ? undefined : '{}',
        });
        expect(res.statusCode).toBe(404);
        expect(res.json()).toEqual({ success: false, code: 'NOT_FOUND', message: expect.any(String), data: null });
      }
    });
  });

  describe('hostile and unusual text is data, not code', () => {
    const NAMES = [
      "Robert'); DROP TABLE sys_user;--",
      "' OR '1'='1",
      '<script>alert("x")</script>',
      '<img src=x onerror=alert(1)>',
      '100%_off \\ "quoted" `tick`',
      '张三😀 مرحبا evil\u0301',
    ];
    // A display name may not hold control or format characters.
    const HIDDEN = ['张三 \u202eevil', 'nul\u0000byte', 'zero\u200bwidth'];

    it('stores SQL-looking, <script> and unicode names as given and returns them unchanged from /sys/user/list', async () => {
      const created: TestUser[] = [];
      for (const name of NAMES) created.push(await createUser(app, { name }));
      const countBefore = Number((await app.db.query('SELECT COUNT(*) AS n FROM sys_user'))[0].n);
      for (const [i, user] of created.entries()) {
        const res = await app.post(
          '/sys/user/list',
          { pageNum: 1, pageSize: 10, keyword: user.username },
          { token, ip: '10.9.9.9' },
        );
        expect(res.status).toBe(200);
        expect(res.headers['content-type']).toMatch(/^application\/json/);
        expect(res.headers['x-content-type-options']).toBe('nosniff');
        expect(res.body.data.rows).toEqual([
          expect.objectContaining({ id: user.id, username: user.username, name: NAMES[i] }),
        ]);
        const [row] = await app.db.query('SELECT name FROM sys_user WHERE id = ?', [user.id]);
        expect(row.name).toBe(NAMES[i]);
      }
      // The table is still there and nothing else moved.
      expect(Number((await app.db.query('SELECT COUNT(*) AS n FROM sys_user'))[0].n)).toBe(countBefore);
    });

    it('refuses names with a control or format character (a bidi override, NUL, zero width), naming the field', async () => {
      for (const name of HIDDEN) {
        const res = await app.post(
          '/sys/user/create',
          { username: `h${Date.now()}`, name, password: await app.encrypt('Passw0rd!x') },
          { token, ip: '10.9.9.9' },
        );
        expect({
          name,
          status: res.status,
          code: res.body.code,
          fields: res.body.data?.errors?.map((e: any) => e.field),
        }).toEqual({ name, status: 400, code: 'VALIDATION_FAILED', fields: ['name'] });
      }
    });

    it('treats SQL and LIKE syntax in the keyword as plain text', async () => {
      const percent = await createUser(app, { name: 'Only 100% here' });
      const quote = await createUser(app, { name: "O'Brien" });
      const total = (await app.post('/sys/user/list', { pageNum: 1, pageSize: 1 }, { token, ip: '10.9.9.9' })).body.data
        .total;
      const search = async (keyword: string) =>
        (await app.post('/sys/user/list', { pageNum: 1, pageSize: 200, keyword }, { token, ip: '10.9.9.9' })).body.data;

      expect((await search('%')).rows.map((r: any) => r.id)).toContain(percent.id);
      expect(
        (await search('%')).rows.every((r: any) =>
          [r.username, r.name, r.mobile ?? '', r.email ?? ''].join().includes('%'),
        ),
      ).toBe(true);
      expect((await search("' OR '1'='1")).total).toBeLessThan(total);
      expect((await search("O'Brien")).rows.map((r: any) => r.id)).toEqual([quote.id]);
      expect((await search("') OR 1=1 --")).total).toBe(0);
      expect(
        (await search('\\')).rows.every((r: any) =>
          [r.username, r.name, r.mobile ?? '', r.email ?? ''].join().includes('\\'),
        ),
      ).toBe(true);
    });

    it('an unknown account in unicode or SQL is just an unknown account, logged as given', async () => {
      for (const account of ["admin' --", "admin' OR '1'='1", '张三😀', 'ad\u0000min']) {
        const res = await app.login(account, ADMIN_PASSWORD);
        expect(res.status).toBe(401);
        expect(res.body).toEqual(BAD_CREDENTIALS);
        const [row] = await app.logRows(account);
        expect(row).toMatchObject({ account, status: 'passwrong', user_id: null });
      }
    });
  });

  describe('VALIDATION_FAILED names every refused field in data.errors', () => {
    it("one entry per refused field, in the caller's language; the message names the first", async () => {
      const res = await app.admin('/sys/loginLog/list', { pageNum: 0, pageSize: 'ten', status: 'foo' });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
      expect(res.body.data.errors.map((e: any) => e.field).sort()).toEqual(['pageNum', 'pageSize', 'status']);
      expect(Object.fromEntries(res.body.data.errors.map((e: any) => [e.field, e.message]))).toEqual({
        pageNum: '页码不能小于1',
        pageSize: '每页条数应为整数',
        status: '状态应为以下之一: 成功、密码错误、动态验证码错误、已锁定、已禁用、已过期、访问规则拒绝',
      });
      expect(res.body.data.errors.map((e: any) => e.message)).toContain(res.body.message);
      const en = await app.post(
        '/sys/loginLog/list',
        { pageNum: 1, pageSize: 10, bogus: 1 },
        { token: await app.adminToken(), ip: '10.9.9.9', headers: { 'accept-language': 'en' } },
      );
      expect(en.body.data).toEqual({ errors: [{ field: 'bogus', message: en.body.message }] });
      expect(en.body.message).toBe('Not an accepted field: bogus');
    });

    it('refusals decided past the body check name their field too: a password that does not decrypt, an unknown role', async () => {
      const plain = await app.admin('/sys/user/create', {
        username: `v_${randomBytes(3).toString('hex')}`,
        name: 'V',
        password: 'Passw0rd!x',
      });
      expect(plain.body).toMatchObject({
        code: 'VALIDATION_FAILED',
        data: { errors: [{ field: 'password', message: plain.body.message }] },
      });
      const role = await app.admin('/sys/user/create', {
        username: `v_${randomBytes(3).toString('hex')}`,
        name: 'V',
        roles: ['no_such_role'],
      });
      expect(role.body).toMatchObject({
        code: 'VALIDATION_FAILED',
        data: { errors: [{ field: 'roles', message: role.body.message }] },
      });
    });

    it('every POST operation of the OpenAPI document refuses null, [], "x", 42 and true, naming the body', async () => {
      const doc = (await app.app.inject({ method: 'GET', url: '/docs-json' })).json();
      // GET /health is a probe for load balancers and reads no body; its POST twin is left alone.
      const posts = Object.keys(doc.paths)
        .filter((path) => doc.paths[path].post && path !== '/health')
        .sort();
      // The document lists every operation this suite knows, and those it does not (audit log, stream ticket).
      expect(posts).toEqual(
        expect.arrayContaining([...ENDPOINTS.map((e) => e.path), '/sys/auditLog/list', '/sys/message/streamTicket']),
      );
      const cases: Case[] = ['null', '[]', '"x"', '42', 'true'].map((raw) => ({
        label: raw,
        raw,
        code: 'VALIDATION_FAILED',
        field: 'body',
      }));
      // A session of its own: were logout to take one of these bodies for {}, it would end only this one.
      const own = await app.token('admin', ADMIN_PASSWORD, { ip: '10.9.9.9' });
      const before = await snapshot();
      const problems: string[] = [];
      for (const path of posts) problems.push(...(await problemsOf(path, cases, own)).map((p) => `${path} ${p}`));
      expect(problems).toEqual([]);
      expect(await snapshot()).toEqual(before);
    });

    it('a strategy save with the body null is refused and leaves the values as they were', async () => {
      const before = (await app.admin('/sys/strategy/login/info')).body.data;
      const res = await send('/sys/strategy/login/save', { raw: 'null' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        success: false,
        code: 'VALIDATION_FAILED',
        message: res.body.message,
        data: { errors: [{ field: 'body', message: res.body.message }] },
      });
      expect((await app.admin('/sys/strategy/login/info')).body.data).toEqual(before);
    });

    it('a body that is not an object, or not JSON, names the body', async () => {
      for (const raw of ['[1,2]', '"text"', '{"account":', 'null x']) {
        const res = await app.post('/sys/login', undefined, { raw });
        expect(res.status).toBe(400);
        expect(res.body).toEqual({
          success: false,
          code: 'VALIDATION_FAILED',
          message: res.body.message,
          data: { errors: [{ field: 'body', message: res.body.message }] },
        });
      }
    });
  });
});

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function flipByte(base64: string): string {
  const bytes = Buffer.from(base64, 'base64');
  bytes[bytes.length - 1] ^= 0xff;
  return bytes.toString('base64');
}
