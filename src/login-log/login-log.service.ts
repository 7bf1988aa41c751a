import { Injectable, OnModuleInit, StreamableFile } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { EventEmitter2 } from '@nestjs/event-emitter';

import { actedBy, AuditLogService } from '../audit/audit-log.service';
import { LOG_PII_CIPHER, LogPiiCipher, openedOr } from '../audit/log-pii';
import type { Actor } from '../common/auth-context';
import { Clock } from '../common/clock';
import { ErrorCode, messageOf } from '../common/error-code';
import { codeLabel, ExportColumn, ExportRequest, exportTable, filtersOf } from '../common/export-table';
import { Page, PagingDto } from '../common/paging.dto';
import { shownAccount } from '../common/pii-mask';
import { ExportLoginLogDto, ListLoginLogDto } from './dto/list-login-log.dto';
import { LoginLogEntity, LoginStatus, LoginTypes } from './login-log.entity';
import { LoginAttemptLoggedEvent, LoginRecordedEvent } from './login-log.events';
import { LoginLogCursor, LoginLogFilter, LoginLogRepository } from './login-log.repository';
import { parseUserAgent } from './user-agent';

export interface LoginAttempt {
  userId: string | null;
  account: string;
  userName: string | null;
  loginType: LoginTypes;
  status: LoginStatus;
  ip: string;
  userAgent: string;
  /**
   * The answer the client got for a refused attempt: stored as its code and, as the failure
   * reason, its message in the default language (zh).
   */
  failure?: ErrorCode | null;
  /**
   * This failure locked the account: its code is ACCOUNT_LOCKED (the text stays the answer the
   * client got), so that the login log shows the lock as an event. Known before the row is written,
   * which is never changed afterwards (it is sealed).
   */
  locking?: boolean;
}

export type LoginLogRow = Omit<LoginLogEntity, 'userId' | 'piiAccount'>;

@Injectable()
export class LoginLogService implements OnModuleInit {
  private pii: LogPiiCipher | undefined;

  constructor(
    private readonly logs: LoginLogRepository,
    private readonly clock: Clock,
    private readonly audit: AuditLogService,
    private readonly events: EventEmitter2,
    private readonly modules: ModuleRef,
  ) {}

  onModuleInit() {
    this.pii = LOG_PII_CIPHER.collectOne(this.modules);
  }

  /** One record per attempt; answers the record's id. */
  async record(attempt: LoginAttempt): Promise<string> {
    const { browser, os } = parseUserAgent(attempt.userAgent);
    const loginTime = this.clock.now();
    const typed = attempt.account.slice(0, 128);
    const account = shownAccount(typed, false);
    const id = await this.logs.insert({
      userId: attempt.userId,
      // A mobile or an e-mail typed as the account is kept masked, and whole only sealed beside it
      // (docs/security.md#personal-data): the log's other columns are not encrypted at rest.
      account,
      piiAccount: account !== typed ? (this.pii?.seal(typed) ?? null) : null,
      userName: attempt.userName,
      loginType: attempt.loginType,
      status: attempt.status,
      ip: attempt.ip.slice(0, 64),
      browser,
      os,
      loginTime,
      failureReason: attempt.failure ? messageOf(attempt.failure, 'zh').slice(0, 255) : null,
      failureCode: attempt.locking ? ErrorCode.ACCOUNT_LOCKED : (attempt.failure ?? null),
    });
    this.events.emit(LoginAttemptLoggedEvent.NAME, new LoginAttemptLoggedEvent(attempt.status, attempt.loginType));
    this.events.emit(
      LoginRecordedEvent.NAME,
      new LoginRecordedEvent(
        attempt.userId,
        attempt.account,
        attempt.loginType,
        attempt.status,
        attempt.ip,
        browser,
        os,
        attempt.failure ?? null,
        loginTime,
      ),
    );
    return id;
  }

  /** Passwrong (and mfawrong) records of the user since `since`. */
  countFailuresSince(userId: string, since: Date): Promise<number> {
    return this.logs.countFailuresSince(userId, since);
  }

  /** countFailuresSince of several users, each from its own start, in one query (failureCount). */
  countFailuresSinceEach(windows: { userId: string; since: Date }[]): Promise<Map<string, number>> {
    return this.logs.countFailuresSinceEach(windows);
  }

  /** IPs of the user's latest successful logins. */
  recentSuccessIps(userId: string, count: number): Promise<string[]> {
    return this.logs.recentSuccessIps(userId, count);
  }

  /** Logins since `since` per quarter hour and outcome (the dashboard puts days and hours together from them). */
  countsByQuarterHour(since: Date) {
    return this.logs.countsByQuarterHour(since);
  }

  topFailures(since: Date, by: 'reason' | 'ip', limit: number) {
    return this.logs.topFailures(since, by, limit);
  }

  /** `wholePii`: accounts typed as a mobile or an e-mail shown whole (a holder of sys:user:pii), else masked. */
  async list(q: ListLoginLogDto, wholePii = false): Promise<Page<LoginLogRow>> {
    const [rows, total] = await this.logs.page(filterOf(q), q.pageNum, q.pageSize);
    return { total, rows: rows.map((r) => rowOf({ ...r, account: this.shown(r, wholePii) })) };
  }

  /**
   * The user's own login history, newest first, in the list's row shape (/sys/me/loginLog): the accounts
   * whole, since the rows are of the user's own logins and so the mobile or e-mail typed is the user's own.
   */
  async listOwn(userId: string, q: PagingDto): Promise<Page<LoginLogRow>> {
    const [rows, total] = await this.logs.page({ userId }, q.pageNum, q.pageSize);
    return { total, rows: rows.map((r) => rowOf({ ...r, account: this.shown(r, true) })) };
  }

  /**
   * The records of the list's filters as CSV (BOM, a header of the list's row fields,
   * newest first), read slice by slice as the client takes them. The export is audited before the
   * first byte, with its filters: who took a copy of the log matters even when the download breaks.
   */
  async export(q: ExportLoginLogDto, actor: Actor, req: ExportRequest, wholePii = false): Promise<StreamableFile> {
    const filter = filterOf(q);
    await this.audit.record({
      action: 'loginLog.export',
      ...actedBy(actor),
      targetId: null,
      detail: { filters: filtersOf(q) },
    });
    const logs = this.logs;
    const shown = (r: LoginLogEntity) => this.shown(r, wholePii);
    async function* slices(): AsyncGenerator<LoginLogEntity[]> {
      let cursor: LoginLogCursor | null = null;
      for (;;) {
        const slice = await logs.slice(filter, cursor, EXPORT_SLICE);
        if (slice.length) yield slice.map((r) => ({ ...r, account: shown(r) }));
        if (slice.length < EXPORT_SLICE) return;
        const last = slice[slice.length - 1];
        cursor = { loginTime: last.loginTime, id: String(last.id) };
      }
    }
    return exportTable('login-log', LOGIN_LOG_COLUMNS, slices(), req);
  }

  /**
   * A row's account as the caller sees it: whole to a holder of sys:user:pii (opened from its sealed copy;
   * masked still when no key opens that any more), else masked, also on rows written before masking.
   */
  private shown(row: LoginLogEntity, wholePii: boolean): string {
    return wholePii ? openedOr(this.pii, row.piiAccount, row.account) : shownAccount(row.account, false);
  }
}

/** Rows per database read of an export: one indexed range read per this many CSV lines. */
const EXPORT_SLICE = 1_000;

/** The list's row fields (and its id), in the order of the CSV header, with their labels for people. */
export const LOGIN_LOG_COLUMNS: ExportColumn<LoginLogEntity>[] = [
  { field: 'id', label: 'exportLabel.id', value: (r) => String(r.id) },
  { field: 'account', label: 'exportLabel.account', value: (r) => r.account },
  { field: 'userName', label: 'exportLabel.userName', value: (r) => r.userName },
  { field: 'loginType', label: 'exportLabel.loginType', value: (r) => r.loginType, show: codeLabel('type_') },
  { field: 'status', label: 'exportLabel.status', value: (r) => r.status, show: codeLabel('status_') },
  { field: 'ip', label: 'exportLabel.ip', value: (r) => r.ip },
  { field: 'browser', label: 'exportLabel.browser', value: (r) => r.browser },
  { field: 'os', label: 'exportLabel.os', value: (r) => r.os },
  { field: 'loginTime', label: 'exportLabel.loginTime', value: (r) => r.loginTime, show: 'time' },
  { field: 'failureReason', label: 'exportLabel.failureReason', value: (r) => r.failureReason },
  { field: 'failureCode', label: 'exportLabel.failureCode', value: (r) => r.failureCode },
];

function rowOf({ userId: _userId, piiAccount: _piiAccount, ...row }: LoginLogEntity): LoginLogRow {
  return { ...row, id: String(row.id) };
}

function filterOf(q: ExportLoginLogDto): LoginLogFilter {
  return {
    // A whole mobile or e-mail finds the rows of it, which keep it masked (LoginLogService.record).
    account: q.account && /^\+?\d{11,}$|@/.test(q.account) ? shownAccount(q.account, false) : q.account,
    status: q.status,
    loginType: q.loginType,
    ip: q.ip,
    from: q.beginTime ? new Date(q.beginTime) : undefined,
    to: q.endTime ? new Date(q.endTime) : undefined,
  };
}
