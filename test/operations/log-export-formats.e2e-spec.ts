import { randomInt } from 'node:crypto';

import ExcelJS from 'exceljs';

import { BACKENDS } from '../support/backends';
import { startApp, TestApp } from '../support/test-app';

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const sqlTime = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 23);
const freshIp = () => `10.${randomInt(100, 250)}.${randomInt(0, 255)}.${randomInt(1, 254)}`;

/** The rows of the first sheet, each cell as text ('' when empty). */
async function sheetRows(raw: Buffer): Promise<string[][]> {
  const book = new ExcelJS.Workbook();
  await book.xlsx.load(raw as unknown as ArrayBuffer);
  const rows: string[][] = [];
  const sheet = book.worksheets[0];
  sheet.eachRow({ includeEmpty: false }, (row) => {
    const values = row.values as unknown[];
    rows.push(
      Array.from({ length: sheet.columnCount }, (_, i) => (values[i + 1] == null ? '' : String(values[i + 1]))),
    );
  });
  return rows;
}

/** Simple CSV (no quoted cells in these rows). */
const csvRows = (raw: Buffer) =>
  raw
    .subarray(BOM.length)
    .toString('utf8')
    .trim()
    .split('\r\n')
    .map((l) => l.split(','));

describe.each(BACKENDS)('exports for people and for scripts on $name', (backend) => {
  let app: TestApp;
  const ip = freshIp();
  // 2025-03-04 05:06:07.089 UTC is 13:06:07 in Shanghai.
  const time = Date.UTC(2025, 2, 4, 5, 6, 7, 89);
  beforeAll(async () => {
    app = await startApp(backend, { env: { DISPLAY_TIMEZONE: 'Asia/Shanghai' } });
    await app.db.query(
      'INSERT INTO sys_login_log (account, user_name, login_type, status, ip, browser, os, login_time, failure_reason, failure_code) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      [
        ...['wang', '王五', 'account', 'success', ip, 'Chrome 120.0', 'Windows 10', sqlTime(time), null, null],
        ...['=HYPERLINK("x")', null, 'mobile', 'passwrong', ip, '@evil', '+cmd', sqlTime(time - 1000), '-1', null],
      ],
    );
  });
  afterAll(() => app.close());

  async function exported(path: string, body: object, language = 'zh-CN') {
    const res = await app.app.inject({
      method: 'POST',
      url: path,
      headers: {
        'content-type': 'application/json',
        'admin-token': await app.adminToken(),
        'accept-language': language,
      },
      payload: JSON.stringify(body),
    });
    const type = String(res.headers['content-type']);
    const rows = type.startsWith(XLSX) ? await sheetRows(res.rawPayload) : csvRows(res.rawPayload);
    return { status: res.statusCode, type, disposition: String(res.headers['content-disposition']), rows };
  }

  it('answers labels by default: zh headers, labels, Shanghai times, the zone in the last header', async () => {
    const res = await exported('/sys/loginLog/export', { ip });
    expect(res.type).toMatch(/^text\/csv; charset=utf-8/);
    expect(res.rows[0]).toEqual([
      '编号',
      '账号',
      '用户姓名',
      '登录方式',
      '状态',
      'IP地址',
      '浏览器',
      '操作系统',
      '失败原因',
      '失败代码',
      '登录时间 (Asia/Shanghai)',
    ]);
    expect(res.rows[1].slice(1, 8)).toEqual(['wang', '王五', '账号', '成功', ip, 'Chrome 120.0', 'Windows 10']);
    expect(res.rows[1].at(-1)).toBe('2025-03-04 13:06:07');
  });

  it('answers en headers and labels to Accept-Language: en', async () => {
    const res = await exported('/sys/loginLog/export', { ip, format: 'xlsx' }, 'en');
    expect(res.type).toBe(XLSX);
    expect(res.disposition).toBe('attachment; filename="login-log.xlsx"');
    expect(res.rows[0][1]).toBe('Account');
    expect(res.rows[0].at(-1)).toBe('Login time (Asia/Shanghai)');
    expect(res.rows[1].slice(3, 5)).toEqual(['Account', 'Success']);
    expect(res.rows[2].slice(3, 5)).toEqual(['Mobile', 'Wrong password']);
  });

  it('answers the row fields, raw codes and ISO 8601 UTC with columns fields, in csv and xlsx alike', async () => {
    const csv = await exported('/sys/loginLog/export', { ip, columns: 'fields' });
    const xlsx = await exported('/sys/loginLog/export', { ip, columns: 'fields', format: 'xlsx' });
    for (const res of [csv, xlsx]) {
      expect(res.rows[0]).toEqual([
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
      ]);
      expect(res.rows[1].slice(1, 5)).toEqual(['wang', '王五', 'account', 'success']);
      expect(res.rows[1][8]).toBe('2025-03-04T05:06:07.089Z');
    }
    expect(csv.rows[1]).toEqual(xlsx.rows[1]);
  });

  it('neutralises formula cells in both formats', async () => {
    for (const body of [
      { ip, columns: 'fields' },
      { ip, columns: 'fields', format: 'xlsx' },
      { ip, format: 'xlsx' },
    ]) {
      const res = await exported('/sys/loginLog/export', body);
      const row = res.rows[2];
      const cells = res.rows[0].map((_h, i) => row[i]);
      expect(cells).toEqual(
        expect.arrayContaining([expect.stringMatching(/^"?'=HYPERLINK/), "'@evil", "'+cmd", "'-1"]),
      );
      expect(cells.some((c) => /^[=+\-@]/.test(c))).toBe(false);
    }
  });

  it('exports the audit log for people with its time last, in xlsx', async () => {
    await exported('/sys/loginLog/export', { ip });
    const res = await exported('/sys/auditLog/export', { action: 'loginLog.export', format: 'xlsx' });
    expect(res.rows[0]).toEqual([
      '编号',
      '操作人编号',
      '操作人',
      '操作',
      '操作对象编号',
      '操作对象',
      '详情',
      'IP地址',
      '操作时间 (Asia/Shanghai)',
    ]);
    expect(res.rows[1][3]).toBe('loginLog.export');
    expect(res.rows[1][8]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    const fields = await exported('/sys/auditLog/export', { action: 'loginLog.export', columns: 'fields' });
    expect(fields.rows[0]).toEqual([
      'id',
      'userId',
      'username',
      'action',
      'target',
      'targetName',
      'detail',
      'ip',
      'createTime',
    ]);
  });

  it('refuses an unknown format or columns with VALIDATION_FAILED', async () => {
    for (const [body, field] of [
      [{ format: 'pdf' }, 'format'],
      [{ columns: 'both' }, 'columns'],
    ] as const) {
      const res = await app.admin('/sys/loginLog/export', body);
      expect(res.body).toMatchObject({
        code: 'VALIDATION_FAILED',
        data: { errors: [expect.objectContaining({ field })] },
      });
    }
  });
});
