import { Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';
import { Page } from '../common/paging.dto';
import { ListLoginLogDto } from './dto/list-login-log.dto';
import { LoginLogEntity, LoginStatus, LoginTypes } from './login-log.entity';
import { LoginLogRepository } from './login-log.repository';
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
    private readonly logs: LoginLogRepository,
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

  /** Spec 3.1: passwrong (and, contract §8, mfawrong) records of the user since `since`. */
  countFailuresSince(userId: string, since: Date): Promise<number> {
    return this.logs.countFailuresSince(userId, since);
  }

  /** countFailuresSince of several users, each from its own start, in one query (contract §12 failureCount). */
  countFailuresSinceEach(windows: { userId: string; since: Date }[]): Promise<Map<string, number>> {
    return this.logs.countFailuresSinceEach(windows);
  }

  /** Spec 4.1 step 10: IPs of the user's latest successful logins. */
  recentSuccessIps(userId: string, count: number): Promise<string[]> {
    return this.logs.recentSuccessIps(userId, count);
  }

  async list(q: ListLoginLogDto): Promise<Page<LoginLogRow>> {
    const [rows, total] = await this.logs.page({
      account: q.account,
      status: q.status,
      loginType: q.loginType,
      ip: q.ip,
      from: q.beginTime ? new Date(q.beginTime) : undefined,
      to: q.endTime ? new Date(q.endTime) : undefined,
    }, q.pageNum, q.pageSize);
    return {
      total,
      rows: rows.map(({ userId: _userId, ...row }) => ({ ...row, id: String(row.id) })),
    };
  }
}
