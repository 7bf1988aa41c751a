import { Injectable, Logger } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { UnusualIpEvent } from '../auth/login/login.events';
import { LoginFailedEvent } from '../user-account/account.events';
import { StrategyService } from '../strategy/strategy.service';
import { channelsOf } from '../strategy/strategy.types';
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

  constructor(private readonly strategy: StrategyService, private readonly notifications: NotificationService) {}

  @OnEvent(LoginFailedEvent.NAME)
  async onLoginFailed(event: LoginFailedEvent): Promise<void> {
    const { sendMsgWhenErrorLogin } = await this.strategy.loginStrategy();
    await this.send(event.userId, NotificationKind.LOGIN_FAILED, sendMsgWhenErrorLogin, alertOf(event));
  }

  @OnEvent(UnusualIpEvent.NAME)
  async onUnusualIp(event: UnusualIpEvent): Promise<void> {
    const { sendMsgWhenErrorIp } = await this.strategy.loginStrategy();
    await this.send(event.userId, NotificationKind.UNUSUAL_IP, sendMsgWhenErrorIp, alertOf(event));
  }

  private async send(userId: string, kind: NotificationKind, setting: string, payload: LoginAlertPayload): Promise<void> {
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
