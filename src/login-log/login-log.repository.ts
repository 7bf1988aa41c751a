import { Injectable, OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { InjectRepository } from '@nestjs/typeorm';
import { Brackets, In, MoreThanOrEqual, Repository, SelectQueryBuilder } from 'typeorm';

import { LOG_ROW_SEAL, LogRowSeal, storedForm } from '../audit/sealed-log-columns';
import { LIKE_ESCAPE_CLAUSE, likePrefix } from '../common/like-prefix';
import { PreparedSelect } from '../common/prepared-select';
import { LoginLogEntity, loginLogSealFields, LoginStatus, LoginTypes } from './login-log.entity';

/** What the login-log list can be narrowed by; every given field must match. */
export interface LoginLogFilter {
  /** The rows of one user's account (/sys/me/loginLog). */
  userId?: string;
  /** Account and ip match a prefix. */
  account?: string;
  status?: LoginStatus;
  loginType?: LoginTypes;
  ip?: string;
  /** Inclusive bounds of the login time. */
  from?: Date;
  to?: Date;
}

/** Where an export slice resumes: the last record of the previous one. */
export interface LoginLogCursor {
  loginTime: Date;
  id: string;
}

/** The statuses the lock counts: wrong second-factor codes share the window, threshold and lock of wrong passwords. */
export const FAILURE_STATUSES = [LoginStatus.PASSWRONG, LoginStatus.MFAWRONG];

/**
 * `sys_login_log`: the only place that queries it, but for its seal columns (read and written by
 * src/log-seal/sealed-log.repository.ts). Rows are never changed once written: they are sealed.
 */
@Injectable()
export class LoginLogRepository implements OnModuleInit {
  private seal: LogRowSeal | undefined;
  /** recentSuccessIps by count (every login reads one), their SQL written once. */
  private readonly recentIps = new Map<number, PreparedSelect<LoginLogEntity>>();

  constructor(
    @InjectRepository(LoginLogEntity) private readonly logs: Repository<LoginLogEntity>,
    private readonly modules: ModuleRef,
  ) {}

  onModuleInit() {
    this.seal = LOG_ROW_SEAL.collectOne(this.modules);
  }

  /**
   * Logins since `since` (the proofs made on /sys/me/* left out), counted per quarter of an hour
   * (epoch seconds / 900, so that any zone's hours and days can be put together from them) and
   * outcome: at most 96 × 2 rows a day, however many logins there were.
   */
  async countsByQuarterHour(since: Date): Promise<{ quarter: number; success: boolean; count: number }[]> {
    const quarter =
      this.logs.manager.connection.options.type === 'better-sqlite3'
        ? "CAST(strftime('%s', l.login_time) AS INTEGER) / 900"
        : "TIMESTAMPDIFF(SECOND, '1970-01-01 00:00:00', l.login_time) DIV 900";
    const rows = await this.logs
      .createQueryBuilder('l')
      .select(quarter, 'quarter')
      .addSelect(`CASE WHEN l.status = '${LoginStatus.SUCCESS}' THEN 1 ELSE 0 END`, 'ok')
      .addSelect('COUNT(*)', 'n')
      .where('l.login_time >= :since', { since })
      .andWhere('l.login_type NOT IN (:...proofs)', { proofs: PROOF_TYPES })
      .groupBy('quarter')
      .addGroupBy('ok')
      .getRawMany<{ quarter: string | number; ok: string | number; n: string | number }>();
    return rows.map((r) => ({ quarter: Number(r.quarter), success: Number(r.ok) === 1, count: Number(r.n) }));
  }

  /** The most frequent failure codes (the status where a row has none) or IPs of failed logins since `since`. */
  async topFailures(since: Date, by: 'reason' | 'ip', limit: number): Promise<{ value: string; count: number }[]> {
    const column = by === 'ip' ? 'l.ip' : 'COALESCE(l.failure_code, l.status)';
    const rows = await this.logs
      .createQueryBuilder('l')
      .select(column, 'value')
      .addSelect('COUNT(*)', 'n')
      .where('l.login_time >= :since', { since })
      .andWhere('l.status <> :ok', { ok: LoginStatus.SUCCESS })
      .andWhere('l.login_type NOT IN (:...proofs)', { proofs: PROOF_TYPES })
      .groupBy('value')
      .orderBy('n', 'DESC')
      .addOrderBy('value', 'ASC')
      .limit(limit)
      .getRawMany<{ value: string; n: string | number }>();
    return rows.map((r) => ({ value: r.value, count: Number(r.n) }));
  }

  /**
   * The new row's id. With its MAC (docs/security.md#sealed-logs), taken of the row as the database
   * will give it back: computed here, so it costs the login no round trip.
   */
  async insert(row: Omit<LoginLogEntity, 'id'>): Promise<string> {
    const stored = storedForm(row);
    const result = await this.logs.insert({
      ...stored,
      rowMac: this.seal?.rowMac('sys_login_log', loginLogSealFields(stored)) ?? null,
    });
    return String(result.identifiers[0]?.id ?? result.raw?.insertId ?? '');
  }

  /**
   * Failures of the user since `since` — wrong passwords (passwrong) and
   * wrong second-factor codes (mfawrong) — served by idx_login_log_user_status_time.
   */
  countFailuresSince(userId: string, since: Date): Promise<number> {
    return this.logs.count({ where: { userId, status: In(FAILURE_STATUSES), loginTime: MoreThanOrEqual(since) } });
  }

  /**
   * countFailuresSince for several users at once, each from its own `since` (the user list's
   * failureCount): one grouped query for a page, on the same index. Users without
   * failures are absent from the map.
   */
  async countFailuresSinceEach(windows: { userId: string; since: Date }[]): Promise<Map<string, number>> {
    if (!windows.length) return new Map();
    const qb = this.logs
      .createQueryBuilder('l')
      .select('l.user_id', 'userId')
      .addSelect('COUNT(*)', 'n')
      .where('l.status IN (:...statuses)', { statuses: FAILURE_STATUSES })
      .andWhere(
        new Brackets((w) =>
          windows.forEach(({ userId, since }, i) =>
            w.orWhere(`(l.user_id = :u${i} AND l.login_time >= :s${i})`, { [`u${i}`]: userId, [`s${i}`]: since }),
          ),
        ),
      )
      .groupBy('l.user_id');
    const rows = await qb.getRawMany<{ userId: string; n: string | number }>();
    return new Map(rows.map((r) => [r.userId, Number(r.n)]));
  }

  /** IPs of the user's latest `count` successful logins, newest first. */
  async recentSuccessIps(userId: string, count: number): Promise<string[]> {
    let recent = this.recentIps.get(count);
    if (!recent) {
      recent = new PreparedSelect(
        this.logs
          .createQueryBuilder('l')
          .select(['l.id', 'l.ip'])
          .where('l.user_id = :userId AND l.status = :status')
          .orderBy('l.login_time', 'DESC')
          .addOrderBy('l.id', 'DESC')
          .limit(count),
      );
      this.recentIps.set(count, recent);
    }
    const rows = await recent.many({ userId, status: LoginStatus.SUCCESS });
    return rows.map((r) => r.ip);
  }

  /** One page of the records matching `filter`, newest first, and how many match in all. */
  page(filter: LoginLogFilter, pageNum: number, pageSize: number): Promise<[LoginLogEntity[], number]> {
    return this.matching(filter)
      .orderBy('l.login_time', 'DESC')
      .addOrderBy('l.id', 'DESC')
      .skip((pageNum - 1) * pageSize)
      .take(pageSize)
      .getManyAndCount();
  }

  /**
   * Export: up to `size` records matching `filter`, newest first, after `cursor` (the
   * last row of the previous slice). Keyset paging on (login_time, id): each slice is one indexed
   * range read, however deep into the log it is, where OFFSET would rescan every row before it.
   * The bound is written `time <= t AND (time < t OR id < i)`: with the OR outermost SQLite walks
   * the whole index from the top on every slice, so each slice gets slower the bigger the log.
   */
  async slice(filter: LoginLogFilter, cursor: LoginLogCursor | null, size: number): Promise<LoginLogEntity[]> {
    const qb = this.matching(filter);
    if (cursor) {
      qb.andWhere('l.login_time <= :cursorTime AND (l.login_time < :cursorTime OR l.id < :cursorId)', {
        cursorTime: cursor.loginTime,
        cursorId: cursor.id,
      });
    }
    return qb.orderBy('l.login_time', 'DESC').addOrderBy('l.id', 'DESC').limit(size).getMany();
  }

  /** The list's filters, shared by the page and the export so that both show the same records. */
  private matching(filter: LoginLogFilter): SelectQueryBuilder<LoginLogEntity> {
    const qb = this.logs.createQueryBuilder('l');
    if (filter.userId) qb.andWhere('l.user_id = :userId', { userId: filter.userId });
    // Prefixes, index-friendly (like-prefix.ts).
    if (filter.account)
      qb.andWhere(`l.account LIKE :account ${LIKE_ESCAPE_CLAUSE}`, { account: likePrefix(filter.account) });
    if (filter.status) qb.andWhere('l.status = :status', { status: filter.status });
    if (filter.loginType) qb.andWhere('l.login_type = :loginType', { loginType: filter.loginType });
    if (filter.ip) qb.andWhere(`l.ip LIKE :ip ${LIKE_ESCAPE_CLAUSE}`, { ip: likePrefix(filter.ip) });
    if (filter.from) qb.andWhere('l.login_time >= :begin', { begin: filter.from });
    if (filter.to) qb.andWhere('l.login_time <= :end', { end: filter.to });
    return qb;
  }
}

/** Rows of the login log that prove a password or code on /sys/me/* rather than log in. */
const PROOF_TYPES = [LoginTypes.PASSCHANGE, LoginTypes.MFA, LoginTypes.REAUTH];
