import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { MoreThanOrEqual, Repository } from 'typeorm';
import { Clock } from '../common/clock';
import { Page } from '../common/paging.dto';
import { ListLoginLogDto } from './dto/list-login-log.dto';
import { LoginLogEntity, LoginStatus, LoginTypes } from './login-log.entity';
import { parseUserAgent } from './user-agent';

export interface LoginAttempt {
  userId: string | null;
  account: string;
  userName: string | null;
  loginType: LoginTypes;
  status: LoginStatus;
  ip: string;
  userAgent: string;
  failureReason?: string | null;
}

export type LoginLogRow = Omit<LoginLogEntity, 'userId'>;

@Injectable()
export class LoginLogService {
  constructor(
    @InjectRepository(LoginLogEntity) private readonly logs: Repository<LoginLogEntity>,
    private readonly clock: Clock,
  ) {}

  /** Spec 2.6: one record per attempt. */
  async record(attempt: LoginAttempt): Promise<void> {
    const { browser, os } = parseUserAgent(attempt.userAgent);
    await this.logs.insert({
      userId: attempt.userId,
      account: attempt.account.slice(0, 128),
      userName: attempt.userName,
      loginType: attempt.loginType,
      status: attempt.status,
      ip: attempt.ip.slice(0, 64),
      browser,
      os,
      loginTime: this.clock.now(),
      failureReason: attempt.failureReason?.slice(0, 255) ?? null,
    });
  }

  /** Spec 3.1: passwrong records of the user since `since` (served by idx_login_log_user_status_time). */
  countFailuresSince(userId: string, since: Date): Promise<number> {
    return this.logs.count({ where: { userId, status: LoginStatus.PASSWRONG, loginTime: MoreThanOrEqual(since) } });
  }

  /** Spec 4.1 step 10: IPs of the user's latest successful logins. */
  async recentSuccessIps(userId: string, count: number): Promise<string[]> {
    const rows = await this.logs.find({
      select: { ip: true },
      where: { userId, status: LoginStatus.SUCCESS },
      order: { loginTime: 'DESC', id: 'DESC' },
      take: count,
    });
    return rows.map((r) => r.ip);
  }

  async list(q: ListLoginLogDto): Promise<Page<LoginLogRow>> {
    const qb = this.logs.createQueryBuilder('l');
    if (q.account) qb.andWhere('l.account = :account', { account: q.account });
    if (q.status) qb.andWhere('l.status = :status', { status: q.status });
    if (q.loginType) qb.andWhere('l.login_type = :loginType', { loginType: q.loginType });
    if (q.ip) qb.andWhere('l.ip = :ip', { ip: q.ip });
    if (q.beginTime) qb.andWhere('l.login_time >= :begin', { begin: new Date(q.beginTime) });
    if (q.endTime) qb.andWhere('l.login_time <= :end', { end: new Date(q.endTime) });
    const [rows, total] = await qb.orderBy('l.login_time', 'DESC').addOrderBy('l.id', 'DESC')
      .skip((q.pageNum - 1) * q.pageSize).take(q.pageSize).getManyAndCount();
    return {
      total,
      rows: rows.map(({ userId: _userId, ...row }) => ({ ...row, id: String(row.id) })),
    };
  }
}
