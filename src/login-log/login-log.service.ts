import { Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';
import { ErrorCode, messageOf } from '../common/error-code';
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
  /**
   * The answer the client got for a refused attempt: stored as its code and, as spec 2.6's failure
   * reason, its message in the contract's default language (zh).
   */
  failure?: ErrorCode | null;
}

export type LoginLogRow = Omit<LoginLogEntity, 'userId'>;

@Injectable()
export class LoginLogService {
  constructor(
    private readonly logs: LoginLogRepository,
    private readonly clock: Clock,
  ) {}

  /** Spec 2.6: one record per attempt; answers the record's id. */
  async record(attempt: LoginAttempt): Promise<string> {
    const { browser, os } = parseUserAgent(attempt.userAgent);
    return this.logs.insert({
      userId: attempt.userId,
      account: attempt.account.slice(0, 128),
      userName: attempt.userName,
      loginType: attempt.loginType,
      status: attempt.status,
      ip: attempt.ip.slice(0, 64),
      browser,
      os,
      loginTime: this.clock.now(),
      failureReason: attempt.failure ? messageOf(attempt.failure, 'zh').slice(0, 255) : null,
      failureCode: attempt.failure ?? null,
    });
  }

  /**
   * Issue 17: the failure record `id` locked its account. Its code becomes ACCOUNT_LOCKED (the
   * text stays the answer the client got), so that the login log shows the lock as an event.
   */
  markLocking(id: string): Promise<void> {
    return this.logs.setFailureCode(id, ErrorCode.ACCOUNT_LOCKED);
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
