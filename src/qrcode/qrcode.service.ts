import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { AppException } from '../common/app.exception';
import { ErrorCode, messageOf } from '../common/error-code';
import { SessionService } from '../auth/session/session.service';
import { LoginStatus, LoginTypes } from '../login-log/login-log.entity';
import { LoginLogService } from '../login-log/login-log.service';
import { parseUserAgent } from '../login-log/user-agent';
import { KeyedMutex } from '../store/keyed-mutex';
import { KvStore } from '../store/kv.store';
import { Keys } from '../store/keys';
import { StrategyService } from '../strategy/strategy.service';
import { RoleService } from '../user-account/role.service';
import { UserAccountService } from '../user-account/user-account.service';
import { UserEntity } from '../user-account/user.entity';

export const QRCODE_TTL_MS = 5 * 60_000;

/** Spec 2.7 / 4.4: a logged-in device authorises a login elsewhere with a one-time code. */
@Injectable()
export class QrcodeService {
  constructor(
    private readonly store: KvStore,
    private readonly accounts: UserAccountService,
    private readonly roles: RoleService,
    private readonly sessions: SessionService,
    private readonly strategy: StrategyService,
    private readonly logs: LoginLogService,
    private readonly mutex: KeyedMutex,
  ) {}

  async generate(userId: string): Promise<{ code: string; expiresIn: number }> {
    const code = randomUUID();
    await this.store.set(Keys.qrcode(code), userId, QRCODE_TTL_MS);
    return { code, expiresIn: QRCODE_TTL_MS / 1000 };
  }

  async verify(code: string, ip: string, userAgent: string) {
    // Single use: an atomic get-and-delete, so of concurrent verifies exactly one wins.
    const userId = await this.store.getDel(Keys.qrcode(code));
    if (!userId) throw new AppException(ErrorCode.QRCODE_INVALID);
    let user: UserEntity | undefined;
    let issued: { token: string; tokenHash: string } | undefined;
    const log = (status: LoginStatus, reason?: ErrorCode) => this.logs.record({
      userId: user!.id, account: user!.username, userName: user!.name, loginType: LoginTypes.QRCODE, status, ip, userAgent,
      failureReason: reason ? messageOf(reason, 'zh') : null,
    });
    try {
      // Under the account's login mutex, as at login: an administrator's lock, disable or reset
      // (which end every session under the same key) cannot slip between the checks and the new token.
      await this.mutex.run(Keys.loginMutex(userId), async () => {
        user = await this.accounts.get(userId).catch((err: unknown) => {
          // A user deleted since the code was made; a database that is away stays SERVICE_UNAVAILABLE.
          throw err instanceof AppException && err.code === ErrorCode.NOT_FOUND ? new AppException(ErrorCode.QRCODE_INVALID) : err;
        });
        if (user.disabled) {
          await log(LoginStatus.DISABLED, ErrorCode.ACCOUNT_DISABLED);
          throw new AppException(ErrorCode.ACCOUNT_DISABLED);
        }
        if (await this.accounts.stillLocked(user)) {
          await log(LoginStatus.LOCKED, ErrorCode.ACCOUNT_LOCKED);
          throw new AppException(ErrorCode.ACCOUNT_LOCKED);
        }
        issued = await this.issueFormalToken(user, ip, userAgent);
      });
      // Written once the token is stored, as at login: a success row always means a token was issued.
      await log(LoginStatus.SUCCESS);
    } catch (err) {
      // The client never receives a token whose success could not be logged: end it (best effort).
      if (issued) await this.sessions.logout(issued.tokenHash, userId).catch(() => undefined);
      throw err;
    }
    return { accessToken: issued!.token, tempUser: false, forceUpdatePassword: false, tip: '' };
  }

  /** The new token follows multiOnline like a password login (contract §5). */
  private async issueFormalToken(user: UserEntity, ip: string, userAgent: string): Promise<{ token: string; tokenHash: string }> {
    if (!(await this.strategy.loginStrategy()).multiOnline) await this.sessions.kickOutOthers(user.id, null);
    const { browser, os } = parseUserAgent(userAgent);
    const issued = await this.sessions.issue({
      userId: user.id, temp: false, ip, permissions: await this.roles.permissionsOf(user.id), browser, os,
    });
    return { token: issued.token, tokenHash: issued.tokenHash };
  }
}
