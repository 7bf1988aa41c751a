import { randomBytes } from 'node:crypto';

import { EventEmitter2 } from '@nestjs/event-emitter';
import ExcelJS from 'exceljs';

import { NotificationService } from '../../src/notification/notification.service';
import { InitialPasswordIssuedEvent } from '../../src/user-account/account.events';
import { UserAdminService } from '../../src/user-account/user-admin.service';
import { BACKENDS } from '../support/backends';
import { createRole, createUser } from '../support/factories';
import { startApp, TestApp } from '../support/test-app';

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** An xlsx of `rows` under `header`, as base64 (what the console sends). */
async function sheet(header: string[], rows: unknown[][]): Promise<string> {
  const book = new ExcelJS.Workbook();
  const ws = book.addWorksheet('users');
  ws.addRow(header);
  for (const r of rows) ws.addRow(r);
  return Buffer.from(await book.xlsx.writeBuffer()).toString('base64');
}

async function rowsOf(raw: Buffer): Promise<string[][]> {
  const book = new ExcelJS.Workbook();
  await book.xlsx.load(raw as unknown as ArrayBuffer);
  const ws = book.worksheets[0];
  const out: string[][] = [];
  ws.eachRow((row) => {
    const values = row.values as unknown[];
    out.push(Array.from({ length: ws.columnCount }, (_, i) => (values[i + 1] == null ? '' : String(values[i + 1]))));
  });
  return out;
}

const HEADER = ['用户名', '姓名', '手机号', '邮箱', '角色'];

describe.each(BACKENDS)('users in and out of Excel on $name', (backend) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp(backend, { env: { DISPLAY_TIMEZONE: 'Asia/Shanghai' } });
  });
  afterAll(() => app.close());

  const tag = () => randomBytes(3).toString('hex');
  const mobile = () => `137${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;
  const userCount = async () => Number((await app.db.query('SELECT COUNT(*) AS n FROM sys_user'))[0].n);

  async function raw(path: string, body: object, language = 'zh-CN') {
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
    return res;
  }

  it('serves a template in the caller language, which the import takes back', async () => {
    const zh = await raw('/sys/user/importTemplate', {});
    expect(zh.headers['content-type']).toBe(XLSX);
    expect((await rowsOf(zh.rawPayload))[0]).toEqual(HEADER);
    const en = await raw('/sys/user/importTemplate', {}, 'en');
    expect((await rowsOf(en.rawPayload))[0]).toEqual(['User name', 'Name', 'Mobile', 'E-mail', 'Roles']);
  });

  it('checks every row on a dry run and creates nobody; then imports all, passwords only to the users', async () => {
    const [a, b] = [`imp_${tag()}`, `imp_${tag()}`];
    const file = await sheet(HEADER, [
      [a, '导入甲', Number(mobile()), null, null],
      [b, '导入乙', null, `${b}@example.com`, 'admin'],
    ]);
    const before = await userCount();
    const dry = await app.admin('/sys/user/import', { file, dryRun: true });
    expect(dry.body).toMatchObject({ success: true, data: { total: 2, created: 0, errors: [] } });
    expect(await userCount()).toBe(before);

    const told: InitialPasswordIssuedEvent[] = [];
    const listen = (e: InitialPasswordIssuedEvent) => told.push(e);
    app.app.get(EventEmitter2).on(InitialPasswordIssuedEvent.NAME, listen);
    const done = await app.admin('/sys/user/import', { file });
    app.app.get(EventEmitter2).off(InitialPasswordIssuedEvent.NAME, listen);
    expect(done.body).toMatchObject({ success: true, data: { total: 2, created: 2, errors: [] } });
    expect(JSON.stringify(done.body)).not.toMatch(/password/i);
    expect(await userCount()).toBe(before + 2);
    const list = await app.admin('/sys/user/list', { pageNum: 1, pageSize: 10, keyword: 'imp_' });
    const byName = new Map(list.body.data.rows.map((r: any) => [r.username, r]));
    expect((byName.get(b) as any).roles).toEqual(['admin']);
    expect((byName.get(a) as any).state).toBe('initial');

    // The generated passwords go to each user by SMS or e-mail, through the outbox, and work.
    const outbox = async () =>
      app.db.query('SELECT user_id, channel, status, payload FROM sys_notification WHERE kind = ?', [
        'initial-password',
      ]);
    const rowOf = async (name: string) => (await outbox()).find((r: any) => r.user_id === (byName.get(name) as any).id);
    expect((await rowOf(a)).channel).toBe('sms');
    expect((await rowOf(b)).channel).toBe('email');
    const password = told.find((e) => e.account === a)!.password;
    expect(password).toMatch(/^[A-HJ-NP-Za-km-z2-9]{4}(-[A-HJ-NP-Za-km-z2-9]{4})+$/);
    expect((await app.login(a, password)).body.success).toBe(true);
    // Once the row is final (here: no SMS or SMTP configured), the password leaves the outbox.
    await app.app.get(NotificationService).deliverDue();
    expect(await rowOf(a)).toMatchObject({ status: 'not_configured', payload: '{}' });

    // One audit row for the import, with its count.
    const audit = await app.admin('/sys/auditLog/list', { pageNum: 1, pageSize: 5, action: 'user.import' });
    expect(audit.body.data.rows[0]).toMatchObject({ action: 'user.import', username: 'admin', detail: { count: 2 } });
    const dryAudits = audit.body.data.rows.filter((r: any) => r.detail?.count === 0);
    expect(dryAudits).toEqual([]);
  });

  it('refuses the whole file with every row error, creating nobody', async () => {
    const existing = await createUser(app);
    const fresh = `imp_${tag()}`;
    await createRole(app, `improle_${tag()}`, ['sys:user:list']);
    const file = await sheet(HEADER, [
      [fresh, '好的', mobile(), null, null],
      ['x', '太短', mobile(), null, null],
      [existing.username, '已存在', mobile(), null, null],
      [`imp_${tag()}`, '无联系方式', null, null, null],
      [`imp_${tag()}`, '坏邮箱', null, 'not-mail', null],
      [`imp_${tag()}`, '未知角色', mobile(), null, 'nosuchrole'],
      [fresh, '重复', mobile(), null, null],
    ]);
    const before = await userCount();
    const res = await app.admin('/sys/user/import', { file });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_FAILED');
    const errors = res.body.data.errors as { row: number; field: string; message: string }[];
    const at = (row: number) => errors.filter((e) => e.row === row).map((e) => e.field);
    expect(at(2)).toEqual([]);
    expect(at(3)).toEqual(['username']);
    expect(at(4)).toEqual(['username']);
    expect(at(5)).toEqual(['email']);
    expect(at(6)).toEqual(['email']);
    expect(at(7)).toEqual(['roles']);
    expect(at(8)).toEqual(['username']);
    expect(errors.find((e) => e.row === 8)!.message).toBe('用户名与第2行重复');
    expect(errors.find((e) => e.row === 5)!.message).toMatch(/手机号和邮箱至少填写一项/);
    expect(await userCount()).toBe(before);
  });

  it('audits the rows created when another request takes an identifier between the check and the creation', async () => {
    const [a, b] = [`imp_${tag()}`, `imp_${tag()}`];
    const file = await sheet(HEADER, [
      [a, '甲', mobile(), null, null],
      [b, '乙', mobile(), null, null],
    ]);
    const accounts = app.app.get(UserAdminService);
    const create = accounts.create.bind(accounts);
    const spy = jest.spyOn(accounts, 'create').mockImplementation(async (input, held, actor) => {
      // The other request wins b's user name just before this import creates it.
      if (input.username === b) await create({ username: b, name: 'other', email: `${b}@example.com` }, ['*']);
      return create(input, held, actor);
    });
    try {
      const res = await app.admin('/sys/user/import', { file });
      expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', data: { errors: [{ row: 3, field: 'username' }] } });
    } finally {
      spy.mockRestore();
    }
    const audit = await app.admin('/sys/auditLog/list', { pageNum: 1, pageSize: 1, action: 'user.import' });
    expect(audit.body.data.rows[0]).toMatchObject({ detail: { count: 1 } });
  });

  it('refuses roles beyond the caller, files that are not xlsx, too large or too long, and missing columns', async () => {
    const codeOf = `lister_${tag()}`;
    await createRole(app, codeOf, ['sys:user:list', 'sys:user:create']);
    const creator = await createUser(app, { roles: [codeOf] });
    const token = await app.token(creator.username, creator.password);
    const beyond = await app.post(
      '/sys/user/import',
      { file: await sheet(HEADER, [[`imp_${tag()}`, '超权', mobile(), null, 'admin']]) },
      { token },
    );
    expect(beyond.body.code).toBe('VALIDATION_FAILED');
    expect(beyond.body.data.errors).toEqual([expect.objectContaining({ row: 2, field: 'roles' })]);

    const notXlsx = await app.admin('/sys/user/import', { file: Buffer.from('a,b\n').toString('base64') });
    expect(notXlsx.body.data.errors).toEqual([expect.objectContaining({ field: 'file' })]);

    const tooMany = await sheet(
      HEADER,
      Array.from({ length: 5_001 }, (_, i) => [`bulk${i}`, 'n', null, `bulk${i}@example.com`, null]),
    );
    const long = await app.admin('/sys/user/import', { file: tooMany });
    expect(long.body).toMatchObject({ code: 'VALIDATION_FAILED', message: '文件最多5000行用户' });

    const big = await app.admin('/sys/user/import', { file: randomBytes(5 * 1024 * 1024 + 10).toString('base64') });
    expect(big.body).toMatchObject({
      code: 'VALIDATION_FAILED',
      data: { errors: [expect.objectContaining({ field: 'file' })] },
    });

    const noName = await app.admin('/sys/user/import', {
      file: await sheet(['用户名', '手机号'], [['abc', mobile()]]),
    });
    expect(noName.body.message).toBe('文件缺少列 name(请使用导入模板)');
  });

  it('exports the users of the list filters, for people and for scripts', async () => {
    const user = await createUser(app, { name: '=SUM(A1)' });
    const people = await raw('/sys/user/export', { keyword: user.username, format: 'xlsx' });
    expect(people.headers['content-type']).toBe(XLSX);
    const rows = await rowsOf(people.rawPayload);
    expect(rows[0]).toEqual([
      '编号',
      '用户名',
      '姓名',
      '手机号',
      '邮箱',
      '角色',
      '状态',
      '双因素认证',
      '创建时间 (Asia/Shanghai)',
      '最后登录时间 (Asia/Shanghai)',
      '密码过期时间 (Asia/Shanghai)',
    ]);
    expect(rows).toHaveLength(2);
    expect(rows[1].slice(1, 3)).toEqual([user.username, "'=SUM(A1)"]);
    expect(rows[1][6]).toBe('初始密码');
    expect(rows[1][7]).toBe('否');
    expect(rows[1][8]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);

    const scripts = await raw('/sys/user/export', { keyword: user.username, columns: 'fields' }, 'en');
    expect(String(scripts.headers['content-type'])).toMatch(/^text\/csv/);
    const lines = scripts.rawPayload.subarray(3).toString('utf8').trim().split('\r\n');
    expect(lines[0]).toBe(
      'id,username,name,mobile,email,roles,state,mfaEnabled,createTime,lastLoginTime,passwordExpireTime',
    );
    expect(lines[1]).toContain(`,${user.username},'=SUM(A1),`);
    expect(lines[1]).toContain(',initial,false,');
    expect(lines[1]).toMatch(/,\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z,/);
  });

  it('lets the administrator type a reset password, checked by the rules; generated ones come in groups of four', async () => {
    const user = await createUser(app);
    const weak = await app.admin('/sys/user/resetPass', { id: user.id, password: await app.encrypt('short') });
    expect(weak.body.code).toBe('PASSWORD_TOO_SHORT');
    expect((await app.login(user.username, user.password)).body.success).toBe(true);

    const typed = await app.admin('/sys/user/resetPass', { id: user.id, password: await app.encrypt('Typed#Pass9') });
    expect(typed.body).toMatchObject({ success: true, data: null });
    expect((await app.login(user.username, 'Typed#Pass9')).body.success).toBe(true);

    const plain = await app.admin('/sys/user/resetPass', { id: user.id, password: 'Typed#Pass9' });
    expect(plain.body.code).toBe('VALIDATION_FAILED');

    const generated = await app.admin('/sys/user/resetPass', { id: user.id });
    if (generated.body.data) {
      expect(generated.body.data.password).toMatch(/^[A-HJ-NP-Za-km-z2-9]{4}(-[A-HJ-NP-Za-km-z2-9]{4})+$/);
    }
  });
});
