import { Injectable, Logger } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';

import { UnusualIpEvent } from '../auth/login/login.events';
import { Clock } from '../common/clock';
import { AppConfig } from '../config/app-config';
import { Keys } from '../store/keys';
import { KvStore } from '../store/kv.store';
import { StrategyService } from '../strategy/strategy.service';
import { channelsOf } from '../strategy/strategy.types';
import { LoginFailedEvent } from '../user-account/account.events';
import { reasonOf } from './notification.errors';
import { NotificationService } from './notification.service';
import { LoginAlertPayload, NotificationKind } from './notification.types';

/**
 * A wrong password and a login from an unusual IP alert the user on the channels the login
 * strategy names. The channels are the settings at the
 * moment of the event; an empty setting sends nothing. The login awaits these
 * handlers (emitAsync), so the outbox rows exist before it answers; a failure
 * here is logged and never fails the login.
 */
@Injectable()
export class LoginNotificationListener {
  private readonly logger = new Logger('Notification');

  constructor(
    private readonly strategy: StrategyService,
    private readonly notifications: NotificationService,
    private readonly store: KvStore,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  @OnEvent(LoginFailedEvent.NAME)
  async onLoginFailed(event: LoginFailedEvent): Promise<void> {
    const { sendMsgWhenErrorLogin } = await this.strategy.loginStrategy();
    if (!channelsOf(sendMsgWhenErrorLogin).length) return;
    // The failure that locks is news of its own and always told; the others once per window.
    if (!event.lockedUntil && !(await this.firstInWindow(event.userId))) return;
    const payload: LoginAlertPayload = {
      ...alertOf(event),
      ...(event.lockedUntil && { lockedUntil: event.lockedUntil.toISOString() }),
    };
    await this.send(event.userId, NotificationKind.LOGIN_FAILED, sendMsgWhenErrorLogin, payload);
  }

  @OnEvent(UnusualIpEvent.NAME)
  async onUnusualIp(event: UnusualIpEvent): Promise<void> {
    const { sendMsgWhenErrorIp } = await this.strategy.loginStrategy();
    await this.send(event.userId, NotificationKind.UNUSUAL_IP, sendMsgWhenErrorIp, alertOf(event));
  }

  /**
   * Whether this is the account's first wrong-password notice of the current fixed window
   * (LOGIN_NOTICE_WINDOW_MINUTES, counted on the injected clock, shared by every instance through
   * the store). The store out of reach: the notice is sent (rather one too many than none).
   */
  private async firstInWindow(userId: string): Promise<boolean> {
    const windowMs = this.config.LOGIN_NOTICE_WINDOW_MINUTES * 60_000;
    if (!windowMs) return true;
    const index = Math.floor(this.clock.nowMs() / windowMs);
    try {
      return await this.store.setIfAbsent(Keys.loginNoticeWindow(userId, index), '1', windowMs + 60_000);
    } catch {
      return true;
    }
  }

  private async send(
    userId: string,
    kind: NotificationKind,
    setting: string,
    payload: LoginAlertPayload,
  ): Promise<void> {
    const channels = channelsOf(setting);
    if (!channels.length) return;
    try {
      await this.notifications.notify(userId, kind, channels, payload);
    } catch (err) {
      this.logger.error(`could not queue the ${kind} notification of user ${userId}: ${reasonOf(err)}`);
    }
  }
}

/** Account, IP, time and hint, as the event carried them. */
function alertOf(event: LoginFailedEvent | UnusualIpEvent): LoginAlertPayload {
  return { account: event.account, ip: event.ip, time: event.time.toISOString(), hint: { ...event.hint } };
}
