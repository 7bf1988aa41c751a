import { Injectable } from '@nestjs/common';

import { AppConfig } from '../../config/app-config';
import { MessageService } from '../message/message.service';
import { NOTIFICATION_LOCALE } from '../notification.constants';
import { Delivery, NotificationChannel } from '../notification.types';
import { contentAsText, notificationContent } from '../notification-content';

/** `site`: into the user's message centre (sys_message), pushed to open SSE streams. */
@Injectable()
export class SiteChannel extends NotificationChannel {
  readonly name = 'site' as const;

  constructor(
    private readonly messages: MessageService,
    private readonly config: AppConfig,
  ) {
    super();
  }

  async deliver(delivery: Delivery): Promise<void> {
    const content = notificationContent(
      delivery.kind,
      delivery.payload,
      NOTIFICATION_LOCALE,
      this.config.DISPLAY_TIMEZONE,
    );
    await this.messages.post({
      // The outbox id: a retried delivery finds its message already stored instead of adding another.
      id: delivery.id,
      userId: delivery.userId,
      kind: delivery.kind,
      title: content.title,
      content: contentAsText(content, NOTIFICATION_LOCALE),
      // The message centre orders by when things happened, however late a retry delivered them.
      createTime: delivery.createTime,
    });
  }
}
