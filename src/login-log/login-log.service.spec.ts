import type { Readable } from 'node:stream';

import { EventEmitter2 } from '@nestjs/event-emitter';

import { FakeClock } from '../../test/support/fake-clock';
import { InMemoryLoginLogRepository } from '../../test/support/in-memory';
import { unit } from '../../test/support/unit';
import type { AuditEntry } from '../audit/audit-log.service';
import type { Actor } from '../common/auth-context';
import { ErrorCode, messageOf } from '../common/error-code';
import { LoginStatus, LoginTypes } from './login-log.entity';
import { LoginAttemptLoggedEvent, LoginRecordedEvent } from './login-log.events';
import { LoginAttempt, LoginLogService } from './login-log.service';

const FIELDS_CSV = { format: 'csv', columns: 'fields', locale: 'zh', timeZone: 'UTC' } as const;

const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36';

async function textOf(stream: Readable): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += String(chunk);
  return text;
}

describe('LoginLogService (one record per login attempt, listed and exported)', () => {
  let clock: FakeClock;
  let rows: InMemoryLoginLogRepository;
  let logs: LoginLogService;
  let audited: AuditEntry[];
  let auditFails: boolean;
  let counted: LoginAttemptLoggedEvent[];
  let recorded: LoginRecordedEvent[];
  const admin = { id: 'a1', name: 'admin', ip: '10.0.0.9', codes: ['*'] } as Actor;

  const attempt = (over: Partial<LoginAttempt> = {}): LoginAttempt => ({
    userId: 'u1',
    account: 'zhangsan',
    userName: '张三',
    loginType: LoginTypes.ACCOUNT,
    status: LoginStatus.SUCCESS,
    ip: '10.0.0.1',
    userAgent: CHROME,
    ...over,
  });

  beforeEach(async () => {
    clock = new FakeClock(new Date('2025-06-01T00:00:00Z'));
    rows = new InMemoryLoginLogRepository();
    audited = [];
    auditFails = false;
    counted = [];
    const events = new EventEmitter2();
    events.on(LoginAttemptLoggedEvent.NAME, (e: LoginAttemptLoggedEvent) => counted.push(e));
    recorded = [];
    events.on(LoginRecordedEvent.NAME, (e: LoginRecordedEvent) => recorded.push(e));
    ({ service: logs } = await unit(LoginLogService, {
      LoginLogRepository: rows,
      Clock: clock,
      EventEmitter2: events,
      AuditLogService: {
        record: async (e: AuditEntry) => {
          if (auditFails) throw new Error('db gone');
          audited.push(e);
        },
      },
    }));
  });

  it('records an attempt with its browser, system and time, and counts it by status and way in only', async () => {
    const id = await logs.record(attempt());
    expect(rows.rows).toEqual([
      {
        id,
        userId: 'u1',
        account: 'zhangsan',
        userName: '张三',
        loginType: LoginTypes.ACCOUNT,
        status: LoginStatus.SUCCESS,
        ip: '10.0.0.1',
        browser: expect.stringContaining('Chrome'),
        os: expect.stringContaining('Windows'),
        loginTime: clock.now(),
        failureReason: null,
        failureCode: null,
        // A user name is no personal data to seal.
        piiAccount: null,
      },
    ]);
    expect(counted).toEqual([new LoginAttemptLoggedEvent(LoginStatus.SUCCESS, LoginTypes.ACCOUNT)]);
  });

  it('records a refusal with the answer the client got: its code and its message in Chinese', async () => {
    await logs.record(attempt({ status: LoginStatus.PASSWRONG, failure: ErrorCode.BAD_CREDENTIALS }));
    expect(rows.rows[0]).toMatchObject({
      failureCode: ErrorCode.BAD_CREDENTIALS,
      failureReason: messageOf(ErrorCode.BAD_CREDENTIALS, 'zh'),
    });
  });

  it('announces each record with who, how, from where and how it ended, for other systems', async () => {
    await logs.record(attempt({ status: LoginStatus.PASSWRONG, failure: ErrorCode.BAD_CREDENTIALS }));
    expect(recorded).toEqual([
      new LoginRecordedEvent(
        'u1',
        'zhangsan',
        LoginTypes.ACCOUNT,
        LoginStatus.PASSWRONG,
        '10.0.0.1',
        expect.stringContaining('Chrome'),
        expect.stringContaining('Windows'),
        ErrorCode.BAD_CREDENTIALS,
        clock.now(),
      ),
    ]);
  });

  it('records an unknown account typed at the form, cut to its column, with no user', async () => {
    await logs.record(
      attempt({ userId: null, userName: null, account: 'x'.repeat(300), status: LoginStatus.PASSWRONG }),
    );
    expect(rows.rows[0]).toMatchObject({ userId: null, userName: null, account: 'x'.repeat(128) });
  });

  it('shows the failure that locked an account as the lock, keeping the answer the client got', async () => {
    await logs.record(attempt({ status: LoginStatus.PASSWRONG, failure: ErrorCode.BAD_CREDENTIALS, locking: true }));
    expect(rows.rows[0]).toMatchObject({
      failureCode: ErrorCode.ACCOUNT_LOCKED,
      failureReason: messageOf(ErrorCode.BAD_CREDENTIALS, 'zh'),
    });
  });

  it('counts wrong passwords and codes of the user since a time, and nothing else', async () => {
    await logs.record(attempt({ status: LoginStatus.PASSWRONG }));
    clock.advanceMinutes(10);
    const since = clock.now();
    await logs.record(attempt({ status: LoginStatus.PASSWRONG }));
    await logs.record(attempt({ status: LoginStatus.MFAWRONG }));
    await logs.record(attempt({ status: LoginStatus.SUCCESS }));
    await logs.record(attempt({ userId: 'u2', status: LoginStatus.PASSWRONG }));
    expect(await logs.countFailuresSince('u1', since)).toBe(2);
    expect(
      await logs.countFailuresSinceEach([
        { userId: 'u1', since },
        { userId: 'u2', since },
      ]),
    ).toEqual(
      new Map([
        ['u1', 2],
        ['u2', 1],
      ]),
    );
  });

  it("knows the IPs of the user's latest successful logins, newest first", async () => {
    for (const ip of ['1.1.1.1', '2.2.2.2', '3.3.3.3']) {
      await logs.record(attempt({ ip }));
      clock.advanceMinutes(1);
    }
    await logs.record(attempt({ ip: '9.9.9.9', status: LoginStatus.PASSWRONG }));
    expect(await logs.recentSuccessIps('u1', 2)).toEqual(['3.3.3.3', '2.2.2.2']);
  });

  it('lists newest first without the user id', async () => {
    await logs.record(attempt({ account: 'first' }));
    clock.advanceMinutes(1);
    await logs.record(attempt({ account: 'second' }));
    const page = await logs.list({ pageNum: 1, pageSize: 10 });
    expect(page.total).toBe(2);
    expect(page.rows.map((r) => r.account)).toEqual(['second', 'first']);
    expect(page.rows[0]).not.toHaveProperty('userId');
  });

  it('audits an export with its filters before the first byte, and writes the records as CSV', async () => {
    await logs.record(attempt({ account: 'zhangsan' }));
    await logs.record(attempt({ account: 'lisi', status: LoginStatus.PASSWRONG }));
    const csv = (await logs.export({ status: LoginStatus.PASSWRONG }, admin, FIELDS_CSV)).getStream();
    expect(audited).toEqual([
      {
        action: 'loginLog.export',
        actorId: 'a1',
        actorName: 'admin',
        ip: '10.0.0.9',
        targetId: null,
        detail: { filters: { status: LoginStatus.PASSWRONG } },
      },
    ]);
    const lines = (await textOf(csv)).split('\r\n').filter(Boolean);
    expect(lines[0]).toBe(
      '\uFEFFid,account,userName,loginType,status,ip,browser,os,loginTime,failureReason,failureCode',
    );
    expect(lines.slice(1).map((l) => l.split(',')[1])).toEqual(['lisi']);
  });

  it('gives no export when its audit row cannot be written', async () => {
    auditFails = true;
    await expect(logs.export({}, admin, FIELDS_CSV)).rejects.toThrow('db gone');
  });
});
