import { Injectable } from '@nestjs/common';

import { AppConfig } from '../../config/app-config';
import { NOTIFICATION_LOCALE } from '../notification.constants';
import {
  ChannelNotConfiguredError,
  Delivery,
  NotificationChannel,
  PermanentDeliveryError,
} from '../notification.types';
import { contentAsText, notificationContent } from '../notification-content';
import { NotificationRecipients } from '../notification-recipients';
import { SmsProvider } from './sms.provider';

/** `sms`: to the user's mobile number through the configured SmsProvider. */
@Injectable()
export class SmsChannel extends NotificationChannel {
  readonly name = 'sms' as const;

  constructor(
    private readonly provider: SmsProvider,
    private readonly recipients: NotificationRecipients,
    private readonly config: AppConfig,
  ) {
    super();
  }

  async deliver(delivery: Delivery): Promise<void> {
    if (!this.provider.configured) throw new ChannelNotConfiguredError(this.provider.missing);
    const user = await this.recipients.get(delivery.userId);
    if (!user.mobile) throw new PermanentDeliveryError('the user has no mobile number');
    const content = notificationContent(
      delivery.kind,
      delivery.payload,
      NOTIFICATION_LOCALE,
      this.config.DISPLAY_TIMEZONE,
    );
    await this.provider.send({
      id: delivery.id,
      to: user.mobile,
      text: `【${content.title}】${contentAsText(content, NOTIFICATION_LOCALE)}`,
      kind: delivery.kind,
    });
  }
}
