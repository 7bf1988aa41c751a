import { Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';

import { InitialPasswordIssuedEvent } from '../user-account/account.events';
import { NotificationService } from './notification.service';
import { NotificationKind } from './notification.types';

/** An imported user's generated password goes to that user by the channels the import found for them. */
@Injectable()
export class InitialPasswordListener {
  constructor(private readonly notifications: NotificationService) {}

  @OnEvent(InitialPasswordIssuedEvent.NAME, { promisify: true })
  async onIssued(event: InitialPasswordIssuedEvent): Promise<void> {
    await this.notifications.notify(event.userId, NotificationKind.INITIAL_PASSWORD, event.channels, {
      account: event.account,
      password: event.password,
    });
  }
}
