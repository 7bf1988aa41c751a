import { randomInt } from 'node:crypto';

import { BACKENDS } from '../support/backends';
import { FORBIDDEN, NOT_LOGGED_IN } from '../support/envelopes';
import { createRole, createUser } from '../support/factories';
import { startApp, TestApp } from '../support/test-app';

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const LOGIN_HEADER = [
  'id',
  'account',
  'userName',
  'loginType',
  'status',
  'ip',
  'browser',
  'os',
  'loginTime',
  'failureReason',
  'failureCode',
];
const AUDIT_HEADER = ['id', 'userId', 'username', 'action', 'target', 'targetName', 'detail', 'ip', 'createTime'];

const sqlTime = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 23);
const freshIp = () => `10.${randomInt(100, 250)}.${randomInt(0, 255)}.${randomInt(1, 254)}`;

/** RFC 4180 as a spreadsheet reads it: quoted cells may hold commas, quotes (doubled) and line breaks. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i += 1;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i += 1;
    } else cell += c;
  }
  if (cell || row.length) {
    row.push(cell);
    rows.push(row);
  }
  return rows;
}

interface CsvReply {
  status: number;
  headers: Record<string, unknown>;
  raw: Buffer;
  rows: string[][];
  json: any;
}

describe.each(BACKENDS)('log export on $name', (backend) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp(backend);
  });
  afterAll(() => app.close());

  async function exportOf(path: string, body: unknown, token?: string): Promise<CsvReply> {
    const headers: Record<string, string> = { 'content-type': 'application/json', 'x-forwarded-for': '10.9.9.9' };
    const tokenToUse = token === undefined ? await app.adminToken() : token;
    if (tokenToUse) headers['admin-token'] = tokenToUse;
    // The row fields, as scripts ask for them; the default (labels) has its own suite (log-export-formats).
    const sent = body && typeof body === 'object' && !('columns' in body) ? { columns: 'fields', ...body } : body;
    const res = await app.app.inject({ method: 'POST', url: path, headers, payload: JSON.stringify(sent) });
    const raw = res.rawPayload;
    const isCsv = String(res.headers['content-type']).startsWith('text/csv');
    return {
      status: res.statusCode,
      headers: res.headers,
      raw,
      rows: isCsv ? parseCsv(raw.subarray(BOM.length).toString('utf8')) : [],
      json: isCsv ? null : JSON.parse(raw.toString('utf8')),
    };
  }

  async function insertLoginRows(
    rows: {
      account: string;
      userName?: string | null;
      ip: string;
      time: number;
      status?: string;
      reason?: string | null;
      code?: string | null;
    }[],
  ) {
    for (let i = 0; i < rows.length; i += 500) {
      const chunk = rows.slice(i, i + 500);
      await app.db.query(
        `INSERT INTO sys_login_log (account, user_name, login_type, status, ip, browser, os, login_time, failure_reason, failure_code) VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
        chunk.flatMap((r) => [
          r.account,
          r.userName ?? null,
          'account',
          r.status ?? 'success',
          r.ip,
          'Chrome 120.0',
          'Windows 10',
          sqlTime(r.time),
          r.reason ?? null,
          r.code ?? null,
        ]),
      );
    }
  }

  it("answers text/csv with a UTF-8 BOM, the list's row fields as header and the list's rows, newest first", async () => {
    const ip = freshIp();
    const now = app.clock.nowMs();
    await insertLoginRows([
      { account: 'wang', userName: '王五', ip, time: now - 3_000 },
      {
        account: 'li',
        userName: '李四',
        ip,
        time: now - 2_000,
        status: 'passwrong',
        reason: '用户名或密码错误',
        code: 'ACCOUNT_LOCKED',
      },
      {
        account: 'zhao',
        userName: null,
        ip,
        time: now - 1_000,
        status: 'locked',
        reason: '用户已被锁定',
        code: 'ACCOUNT_LOCKED',
      },
    ]);

    const res = await exportOf('/sys/loginLog/export', { ip });

    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="login-log.csv"');
    expect(res.raw.subarray(0, 3)).toEqual(BOM);
    const [header, ...lines] = res.rows;
    expect(header).toEqual(LOGIN_HEADER);
    const list = await app.admin('/sys/loginLog/list', { pageNum: 1, pageSize: 10, ip });
    expect(lines).toEqual(
      list.body.data.rows.map((row: Record<string, unknown>) =>
        LOGIN_HEADER.map((f) => (row[f] === null ? '' : String(row[f]))),
      ),
    );
    expect(lines.map((l) => l[1])).toEqual(['zhao', 'li', 'wang']);
    expect(lines[2][2]).toBe('王五');
    expect(lines.map((l) => l[LOGIN_HEADER.indexOf('failureCode')])).toEqual(['ACCOUNT_LOCKED', 'ACCOUNT_LOCKED', '']);
  });

  it('applies every filter of the list', async () => {
    const ip = freshIp();
    const now = app.clock.nowMs();
    await insertLoginRows([
      { account: 'f-a', ip, time: now - 10 * 60_000 },
      { account: 'f-b', ip, time: now - 5 * 60_000, status: 'passwrong' },
      { account: 'f-a', ip, time: now - 60_000, status: 'passwrong' },
    ]);
    const accounts = async (filters: Record<string, unknown>) =>
      (await exportOf('/sys/loginLog/export', { ip, ...filters })).rows.slice(1).map((r) => r[1]);

    expect(await accounts({})).toEqual(['f-a', 'f-b', 'f-a']);
    expect(await accounts({ status: 'passwrong' })).toEqual(['f-a', 'f-b']);
    expect(await accounts({ account: 'f-a' })).toEqual(['f-a', 'f-a']);
    // Account and ip are prefixes, as in the list, with LIKE's wildcards taken literally.
    expect(await accounts({ account: 'F-' })).toEqual(['f-a', 'f-b', 'f-a']);
    expect(await accounts({ account: 'f%' })).toEqual([]);
    expect(await accounts({ account: 'f_a' })).toEqual([]);
    expect(await accounts({ ip: ip.slice(0, ip.lastIndexOf('.') + 1) })).toEqual(
      expect.arrayContaining(['f-a', 'f-b']),
    );
    expect(await accounts({ loginType: 'qrcode' })).toEqual([]);
    expect(
      await accounts({
        beginTime: new Date(now - 6 * 60_000).toISOString(),
        endTime: new Date(now - 2 * 60_000).toISOString(),
      }),
    ).toEqual(['f-b']);
  });

  it('streams more records than one database slice, each exactly once, even with equal times', async () => {
    const ip = freshIp();
    const time = app.clock.nowMs() - 7_000;
    await insertLoginRows(Array.from({ length: 2_501 }, (_, i) => ({ account: `many-${i}`, ip, time })));

    const res = await exportOf('/sys/loginLog/export', { ip });

    const ids = res.rows.slice(1).map((r) => r[0]);
    expect(ids).toHaveLength(2_501);
    expect(new Set(ids).size).toBe(2_501);
    expect(ids.map(Number)).toEqual([...ids.map(Number)].sort((a, b) => b - a));
  });

  it('escapes quotes, commas and line breaks, and neutralises cells a spreadsheet would run as formulas', async () => {
    const ip = freshIp();
    const now = app.clock.nowMs();
    const awkward = 'a,"b"\nc';
    const formulas = ['=HYPERLINK("http://evil.example","x")', '+1+1', '-2', '@SUM(A1)'];
    await insertLoginRows([awkward, ...formulas].map((account, i) => ({ account, ip, time: now - 1_000 + i })));

    const res = await exportOf('/sys/loginLog/export', { ip });

    const text = res.raw.toString('utf8');
    expect(text).toContain('"a,""b""\nc"');
    const accounts = res.rows
      .slice(1)
      .map((r) => r[1])
      .reverse();
    expect(accounts).toEqual([awkward, ...formulas.map((f) => `'${f}`)]);
    expect(res.rows.slice(1).every((r) => r.length === LOGIN_HEADER.length)).toBe(true);
  });

  it('neutralises a formula behind leading white space, Unicode spaces included (LibreOffice trims them)', async () => {
    const ip = freshIp();
    const now = app.clock.nowMs();
    const hidden = [' =1+1', '\u3000+1+1', '\u00a0-2', '\u2003 @SUM(A1)', ' \t=x', 'a =1', ' plain'];
    await insertLoginRows(hidden.map((account, i) => ({ account, ip, time: now - 1_000 + i })));

    const res = await exportOf('/sys/loginLog/export', { ip });

    const accounts = res.rows
      .slice(1)
      .map((r) => r[1])
      .reverse();
    expect(accounts).toEqual([...hidden.slice(0, 5).map((f) => `'${f}`), 'a =1', ' plain']);
  });

  it('needs sys:loginLog:export (or *), and keeps the envelope when refused', async () => {
    await createRole(app, 'log-reader', ['sys:loginLog:list', 'sys:auditLog:list']);
    await createRole(app, 'log-exporter', ['sys:loginLog:export', 'sys:auditLog:export']);
    const reader = await createUser(app, { roles: ['log-reader'] });
    const exporter = await createUser(app, { roles: ['log-exporter'] });

    expect((await exportOf('/sys/loginLog/export', {}, '')).json).toEqual(NOT_LOGGED_IN);
    const readerToken = await app.token(reader.username, reader.password);
    const refused = await exportOf('/sys/loginLog/export', {}, readerToken);
    expect(refused.status).toBe(403);
    expect(refused.headers['content-type']).toMatch(/^application\/json/);
    expect(refused.json).toEqual(FORBIDDEN);
    expect((await exportOf('/sys/auditLog/export', {}, readerToken)).json).toEqual(FORBIDDEN);

    const exporterToken = await app.token(exporter.username, exporter.password);
    expect((await exportOf('/sys/loginLog/export', {}, exporterToken)).status).toBe(200);
    expect((await exportOf('/sys/auditLog/export', {}, exporterToken)).status).toBe(200);
  });

  it('answers bad filters with VALIDATION_FAILED naming the field, before any CSV, and does not audit them', async () => {
    const auditCount = async () =>
      (await app.admin('/sys/auditLog/list', { pageNum: 1, pageSize: 1, action: 'loginLog.export' })).body.data.total;
    const before = await auditCount();
    for (const [body, field] of [
      [{ status: 'nope' }, 'status'],
      [{ beginTime: '2023-02-29' }, 'beginTime'],
      [{ pageNum: 1 }, 'pageNum'],
    ] as const) {
      const res = await exportOf('/sys/loginLog/export', body);
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.json).toMatchObject({
        success: false,
        code: 'VALIDATION_FAILED',
        data: { errors: [expect.objectContaining({ field })] },
      });
    }
    expect((await exportOf('/sys/auditLog/export', { action: 5 })).json).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(await auditCount()).toBe(before);
  });

  it('audits each export with its filters (loginLog.export, auditLog.export)', async () => {
    await exportOf('/sys/loginLog/export', { status: 'locked', ip: '10.1.2.3' });
    await exportOf('/sys/auditLog/export', { action: 'user.lock' });

    const rowsOf = async (action: string) =>
      (await app.admin('/sys/auditLog/list', { pageNum: 1, pageSize: 1, action })).body.data.rows;
    expect(await rowsOf('loginLog.export')).toEqual([
      expect.objectContaining({
        username: 'admin',
        action: 'loginLog.export',
        ip: '10.9.9.9',
        detail: { filters: { status: 'locked', ip: '10.1.2.3' } },
      }),
    ]);
    expect(await rowsOf('auditLog.export')).toEqual([
      expect.objectContaining({
        username: 'admin',
        action: 'auditLog.export',
        detail: { filters: { action: 'user.lock' } },
      }),
    ]);
  });

  it("exports the audit log with the list's row fields, detail as JSON text", async () => {
    const user = await createUser(app);
    await app.admin('/sys/user/lock', { id: user.id });

    const res = await exportOf('/sys/auditLog/export', { action: 'user.lock', target: user.id });

    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.raw.subarray(0, 3)).toEqual(BOM);
    const [header, ...lines] = res.rows;
    expect(header).toEqual(AUDIT_HEADER);
    const list = await app.admin('/sys/auditLog/list', {
      pageNum: 1,
      pageSize: 10,
      action: 'user.lock',
      target: user.id,
    });
    expect(lines).toEqual(
      list.body.data.rows.map((row: Record<string, unknown>) =>
        AUDIT_HEADER.map((f) => {
          const v = row[f];
          return v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
        }),
      ),
    );
    expect(lines).toHaveLength(1);
  });

  it("exports the audit log with the list's prefix filters and beginTime/endTime", async () => {
    const user = await createUser(app);
    await app.admin('/sys/user/lock', { id: user.id });
    const ids = async (filters: Record<string, unknown>) =>
      (await exportOf('/sys/auditLog/export', { action: 'user.lock', ...filters })).rows
        .slice(1)
        .map((r) => r[AUDIT_HEADER.indexOf('target')]);

    // target by a prefix of the target's user name, username by a prefix of the acting administrator's.
    expect(await ids({ target: user.username.slice(0, -1), username: 'adm' })).toEqual([user.id]);
    const at = app.clock.nowMs();
    expect(
      await ids({
        target: user.id,
        beginTime: new Date(at - 60_000).toISOString(),
        endTime: new Date(at + 60_000).toISOString(),
      }),
    ).toEqual([user.id]);
    expect(await ids({ target: user.id, endTime: new Date(at - 60_000).toISOString() })).toEqual([]);
    expect(await ids({ target: user.id, beginTime: new Date(at + 60_000).toISOString() })).toEqual([]);
    expect((await exportOf('/sys/auditLog/export', { beginTime: 'yesterday' })).json).toMatchObject({
      code: 'VALIDATION_FAILED',
      data: { errors: [expect.objectContaining({ field: 'beginTime' })] },
    });
  });
});
