import { Injectable, Logger } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';

import { LoginAttackEvent } from '../auth/login/login.events';
import { RoleService } from '../user-account/role.service';
import { reasonOf } from './notification.errors';
import { NotificationService } from './notification.service';
import { LoginAttackPayload, NotificationKind } from './notification.types';

/** Those who may change the login strategy are told, by site message, when the adaptive captcha starts and ends. */
export const LOGIN_ATTACK_RECIPIENTS = 'sys:strategy:login:save';

@Injectable()
export class LoginAttackListener {
  private readonly logger = new Logger('Notification');

  constructor(
    private readonly roles: RoleService,
    private readonly notifications: NotificationService,
  ) {}

  @OnEvent(LoginAttackEvent.NAME)
  async onLoginAttack(event: LoginAttackEvent): Promise<void> {
    const payload: LoginAttackPayload = {
      started: event.started,
      time: event.time.toISOString(),
      threshold: event.threshold,
    };
    try {
      for (const userId of await this.roles.holdersOf(LOGIN_ATTACK_RECIPIENTS)) {
        await this.notifications.notify(userId, NotificationKind.LOGIN_ATTACK, ['site'], payload);
      }
    } catch (err) {
      this.logger.warn(`login attack message not sent: ${reasonOf(err)}`);
    }
  }
}
