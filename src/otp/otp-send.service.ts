import { randomUUID } from 'node:crypto';

import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';

import { CaptchaService } from '../auth/captcha/captcha.service';
import { AppException } from '../common/app.exception';
import { Clock } from '../common/clock';
import { ErrorCode } from '../common/error-code';
import { MfaCrypto } from '../mfa/mfa-crypto';
import { PENDING_LOGINS } from '../mfa/mfa-login.service';
import { PendingLogin } from '../mfa/second-factor.proof';
import { NotificationService } from '../notification/notification.service';
import { PiiCipher } from '../pii/pii-cipher';
import { KvStore } from '../store/kv.store';
import { OneTimeStore } from '../store/one-time-store';
import { StrategyService } from '../strategy/strategy.service';
import { UserEntity } from '../user-account/user.entity';
import { UserLookup } from '../user-account/user-lookup.service';
import { maskEmail, maskMobile } from './mask';
import { OtpEmailChannel, OtpKind, OtpPayload, OtpSmsChannel } from './otp.channel';
import { AccountPurpose, confirmPurpose, OtpChannel, OtpPurpose } from './otp.types';
import { OtpCodes } from './otp-codes';
import { countedId, OtpLimits } from './otp-limits';

export interface AccountSend {
  account: string;
  channel: OtpChannel;
  purpose: AccountPurpose;
  imgId?: string;
  imgCode?: string;
}

export interface MfaSend {
  mfaToken: string;
  channel: OtpChannel;
}

/** What a send answers: where the code went, masked, or null when none was sent. */
export interface SendResult {
  sentTo: string | null;
}

/**
 * POST /sys/otp/send. One answer for every account: `{ sentTo }`, masked, or null when nothing was
 * sent (no such account, no mobile or e-mail on it). The limits of the account as typed are counted
 * before the account is looked up, and an account that does not exist is counted against a
 * recipient of its own, so that the limits and the work done (and so the time taken) tell nothing
 * about which accounts exist. The code goes through the outbox after the answer: delivery
 * problems land in sys_notification, never in the answer.
 */
@Injectable()
export class OtpSendService implements OnApplicationShutdown {
  private readonly logger = new Logger('Otp');
  private readonly pendingLogins: OneTimeStore<PendingLogin>;
  /** Outbox writes under way; a shutdown waits for them. */
  private readonly writes = new Set<Promise<void>>();

  constructor(
    private readonly captcha: CaptchaService,
    private readonly strategy: StrategyService,
    private readonly accounts: UserLookup,
    private readonly codes: OtpCodes,
    private readonly limits: OtpLimits,
    private readonly notifications: NotificationService,
    private readonly crypto: MfaCrypto,
    private readonly sms: OtpSmsChannel,
    private readonly email: OtpEmailChannel,
    private readonly pii: PiiCipher,
    store: KvStore,
    clock: Clock,
  ) {
    this.pendingLogins = new OneTimeStore(store, clock, PENDING_LOGINS);
  }

  async onApplicationShutdown() {
    await Promise.allSettled([...this.writes]);
  }

  /** A code to log in with or to reset a forgotten password with, each only while the strategy allows it. */
  async sendForAccount(req: AccountSend): Promise<SendResult> {
    await this.ensureAllowed(req.purpose);
    await this.captcha.verify(req.imgId, req.imgCode);
    await this.limits.take('account', countedId(req.account));
    const found = await this.accounts.findForLogin(req.account);
    // An unknown account costs the same reads: a look-up by an id nobody holds.
    const user = await this.accounts.get(found?.userId ?? randomUUID()).catch(ignoreNotFound);
    // An unknown account opens a decoy: the same work, so the time taken tells nothing about which accounts exist.
    const to = user ? this.pii.reveal(recipientOf(user, req.channel)) : (this.pii.reveal(this.pii.decoy), null);
    if (!user || !to) {
      // Counted as its own recipient: the same count as the account's above, so never refused where that was not.
      await this.limits.take('recipient', countedId(`none:${req.account}`));
      return { sentTo: null };
    }
    return this.sendTo(user, req.purpose, req.channel, to);
  }

  /** A code for the second login step of the mfaToken's login, on a channel mfaChannels allows. */
  async sendForMfa(req: MfaSend): Promise<SendResult> {
    const pending = await this.pendingLogins.peek(req.mfaToken);
    if (!pending) throw new AppException(ErrorCode.MFA_TOKEN_INVALID);
    const { mfaChannels } = await this.strategy.loginStrategy();
    if (!mfaChannels.includes(req.channel)) throw new AppException(ErrorCode.FORBIDDEN);
    await this.limits.take('account', countedId(pending.account));
    const user = await this.accounts.get(pending.userId).catch(ignoreNotFound);
    if (!user) throw new AppException(ErrorCode.MFA_TOKEN_INVALID);
    const to = this.pii.reveal(recipientOf(user, req.channel));
    if (!to) return { sentTo: null };
    return this.sendTo(user, 'mfa', req.channel, to);
  }

  /**
   * A code confirming `to` as the user's new mobile or e-mail (/sys/me/profile/update): sent to the
   * new address, carrying it sealed, so that only the code's owner can make it the account's.
   */
  sendForConfirmation(user: UserEntity, channel: OtpChannel, to: string): Promise<SendResult> {
    return this.sendTo(user, confirmPurpose(channel), channel, to, this.crypto.encrypt(to));
  }

  private async ensureAllowed(purpose: AccountPurpose): Promise<void> {
    const allowed =
      purpose === 'login'
        ? (await this.strategy.loginStrategy()).otpLogin
        : (await this.strategy.userStrategy()).selfServiceReset;
    if (!allowed) throw new AppException(ErrorCode.FORBIDDEN);
  }

  private async sendTo(
    user: UserEntity,
    purpose: OtpPurpose,
    channel: OtpChannel,
    to: string,
    payload?: string,
  ): Promise<SendResult> {
    await this.limits.take('recipient', countedId(to));
    const code = await this.codes.issue(purpose, user.id, channel, payload);
    this.queue(user.id, purpose, channel, code, to);
    return { sentTo: channel === 'sms' ? maskMobile(to) : maskEmail(to) };
  }

  /** The outbox row, written after the answer: a slow or failing database shows in neither its time nor its body. */
  private queue(userId: string, purpose: OtpPurpose, channel: OtpChannel, code: string, to: string): void {
    const payload: OtpPayload = { purpose, sealedCode: this.crypto.encrypt(code), sealedTo: this.crypto.encrypt(to) };
    const kind: OtpKind = `otp-${purpose}`;
    // After the answer has gone: the row's write is not part of the time the answer takes.
    const write = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.notifications.sendTo(channel === 'sms' ? this.sms : this.email, userId, kind, payload))
      .then(
        () => undefined,
        (err: unknown) =>
          this.logger.error(`could not queue the ${kind} code of user ${userId}: ${(err as Error)?.name}`),
      )
      .finally(() => this.writes.delete(write));
    this.writes.add(write);
  }
}

export function recipientOf(user: UserEntity, channel: OtpChannel): string | null {
  return (channel === 'sms' ? user.mobile : user.email) || null;
}

export function ignoreNotFound(err: unknown): null {
  if (err instanceof AppException && err.code === ErrorCode.NOT_FOUND) return null;
  throw err;
}
