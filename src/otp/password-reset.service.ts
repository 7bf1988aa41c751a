import { Injectable, Logger } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';

import { AuditLogService } from '../audit/audit-log.service';
import { AppException } from '../common/app.exception';
import { Clock } from '../common/clock';
import { ErrorCode } from '../common/error-code';
import { bilingual } from '../common/texts';
import { LoginStatus, LoginTypes } from '../login-log/login-log.entity';
import { LoginLogService } from '../login-log/login-log.service';
import { NotificationService } from '../notification/notification.service';
import { NotificationKind } from '../notification/notification.types';
import { SessionService } from '../session/session.service';
import { KeyedMutex } from '../store/keyed-mutex';
import { Keys } from '../store/keys';
import { StrategyService } from '../strategy/strategy.service';
import { PasswordChangedEvent } from '../user-account/account.events';
import { AccountStateService } from '../user-account/account-state.service';
import { LockoutService } from '../user-account/lockout.service';
import { PasswordHasher } from '../user-account/password-hasher';
import { PasswordScreen, previousToKeep } from '../user-account/password-screen';
import { UserEntity } from '../user-account/user.entity';
import { UserRepository } from '../user-account/user.repository';
import { UserLookup } from '../user-account/user-lookup.service';
import { OtpChannel } from './otp.types';
import { OtpCodes } from './otp-codes';
import { ignoreNotFound } from './otp-send.service';

export interface SelfReset {
  account: string;
  code: string;
  newPass: string;
  ip: string;
  userAgent: string;
}

const OTHER_CHANNEL: Record<OtpChannel, 'sms' | 'email'> = { sms: 'email', email: 'sms' };

/**
 * POST /sys/password/reset: a forgotten password replaced with a code sent for `reset`. Under the
 * account's login mutex, as a login: a locked or disabled account answers as a wrong code does
 * (logged `locked` / `disabled`, the code untouched); a wrong code is logged `passwrong` (login type
 * `passreset`) and counted by the lock; a right one is checked first and spent only once the new
 * password passes every rule of a user's own change (a refused password leaves the code usable,
 * and nobody without the code learns anything of the rules' verdict, the history's included). Then
 * every session ends, the other channel tells the owner, and the reset is audited.
 */
@Injectable()
export class PasswordResetService {
  private readonly logger = new Logger('Otp');

  constructor(
    private readonly strategy: StrategyService,
    private readonly accounts: UserLookup,
    private readonly users: UserRepository,
    private readonly states: AccountStateService,
    private readonly codes: OtpCodes,
    private readonly lockout: LockoutService,
    private readonly logs: LoginLogService,
    private readonly mutex: KeyedMutex,
    private readonly screen: PasswordScreen,
    private readonly hasher: PasswordHasher,
    private readonly sessions: SessionService,
    private readonly notifications: NotificationService,
    private readonly audit: AuditLogService,
    private readonly events: EventEmitter2,
    private readonly clock: Clock,
  ) {}

  async reset(req: SelfReset): Promise<void> {
    if (!(await this.strategy.userStrategy()).selfServiceReset) throw new AppException(ErrorCode.FORBIDDEN);
    const found = await this.accounts.findForLogin(req.account);
    if (!found) return this.refuse(null, req, LoginStatus.PASSWRONG);
    const { user, channel } = await this.mutex.run(Keys.loginMutex(found.userId), async () => {
      const now = await this.accounts.withPassword(found.userId).catch(ignoreNotFound);
      if (!now) return this.refuse(null, req, LoginStatus.PASSWRONG);
      if (await this.states.stillLocked(now)) return this.refuse(now, req, LoginStatus.LOCKED);
      if (now.disabled) return this.refuse(now, req, LoginStatus.DISABLED);
      const verdict = await this.codes.check('reset', now.id, req.code, false);
      if (!verdict.right) {
        await this.lockout.recordFailure({
          user: now,
          account: req.account,
          loginType: LoginTypes.PASSRESET,
          ip: req.ip,
          userAgent: req.userAgent,
          status: LoginStatus.PASSWRONG,
          reason: ErrorCode.MFA_CODE_INVALID,
        });
        throw new AppException(ErrorCode.MFA_CODE_INVALID);
      }
      await this.screen.checkOwn(now, req.newPass);
      if (!(await this.codes.consume('reset', now.id, req.code))) throw new AppException(ErrorCode.MFA_CODE_INVALID);
      const rules = await this.strategy.userStrategy();
      await this.users.setPassword(
        now.id,
        await this.hasher.hash(req.newPass),
        this.clock.now(),
        previousToKeep(rules.passwordHistoryCount),
      );
      await this.sessions.endAll(now.id);
      // A login code sent before the reset would outlive the password it was meant to stand beside.
      await this.codes.revoke('login', now.id);
      return { user: now, channel: verdict.channel };
    });
    await this.after(user, channel, req);
  }

  /** The reset has happened: the announcement, the notice and the audit row; a failure of these is logged only. */
  private async after(user: UserEntity, channel: OtpChannel, req: SelfReset): Promise<void> {
    const time = this.clock.now();
    this.events.emit(PasswordChangedEvent.NAME, new PasswordChangedEvent(user.id, user.username, req.ip, time));
    this.logger.log(`user ${user.id} reset a forgotten password with a code sent by ${channel}`);
    try {
      await this.notifications.notify(user.id, NotificationKind.PASSWORD_SELF_RESET, [OTHER_CHANNEL[channel], 'site'], {
        account: req.account,
        ip: req.ip,
        time: time.toISOString(),
        hint: bilingual('notification.passwordSelfResetLead'),
      });
    } catch (err) {
      this.logger.error(`could not queue the reset notice of user ${user.id}: ${(err as Error)?.name}`);
    }
    await this.audit.recordDone('password.selfReset', {
      actorId: user.id,
      actorName: user.username,
      ip: req.ip,
      targetId: user.id,
      targetName: user.username,
      detail: { channel },
    });
  }

  /** Answered as a wrong code; logged with `status`, counted by nothing. */
  private async refuse(user: UserEntity | null, req: SelfReset, status: LoginStatus): Promise<never> {
    await this.logs.record({
      userId: user?.id ?? null,
      account: req.account,
      userName: user?.name ?? null,
      loginType: LoginTypes.PASSRESET,
      status,
      ip: req.ip,
      userAgent: req.userAgent,
      failure: ErrorCode.MFA_CODE_INVALID,
    });
    throw new AppException(ErrorCode.MFA_CODE_INVALID);
  }
}
