import { Injectable } from '@nestjs/common';
import { MailerService } from '@nestjs-modules/mailer';

import { AppConfig } from '../../config/app-config';
import { NOTIFICATION_LOCALE } from '../notification.constants';
import {
  ChannelNotConfiguredError,
  Delivery,
  NotificationChannel,
  PermanentDeliveryError,
} from '../notification.types';
import { notificationContent } from '../notification-content';
import { NotificationRecipients } from '../notification-recipients';
import { EmailTemplates } from './email-templates';

/** `email`: to the user's mailbox, from a template, over SMTP_URL. */
@Injectable()
export class EmailChannel extends NotificationChannel {
  readonly name = 'email' as const;

  constructor(
    private readonly mailer: MailerService,
    private readonly templates: EmailTemplates,
    private readonly recipients: NotificationRecipients,
    private readonly config: AppConfig,
  ) {
    super();
  }

  async deliver(delivery: Delivery): Promise<void> {
    if (!this.config.SMTP_URL) throw new ChannelNotConfiguredError('SMTP_URL is not set');
    const user = await this.recipients.get(delivery.userId);
    if (!user.email) throw new PermanentDeliveryError('the user has no e-mail address');
    const content = notificationContent(
      delivery.kind,
      delivery.payload,
      NOTIFICATION_LOCALE,
      this.config.DISPLAY_TIMEZONE,
    );
    const mail = this.templates.render(content, user.name || user.username, NOTIFICATION_LOCALE);
    try {
      await this.mailer.sendMail({
        to: user.email,
        subject: mail.subject,
        html: mail.html,
        text: mail.text,
        headers: {
          // Lets a mail system or a support person match a mail to its outbox row.
          'X-Notification-Id': delivery.id,
          // A machine's notice: mail systems send no out-of-office or other automatic reply to it.
          'Auto-Submitted': 'auto-generated',
          'X-Auto-Response-Suppress': 'All',
        },
      });
    } catch (err) {
      // The server refused the recipient for good (5xx to RCPT TO): retrying cannot help.
      const e = err as { code?: string; responseCode?: number };
      if (e.code === 'EENVELOPE' && (e.responseCode ?? 0) >= 500) {
        throw new PermanentDeliveryError(`recipient refused: ${(err as Error).message}`);
      }
      throw err;
    }
  }
}

/**
 * nodemailer's defaults wait up to 2 minutes for a connection and 10 for a
 * silent socket; an outbox pass should not hang that long. Values already in
 * the URL's query win.
 */
export function smtpTransportUrl(smtpUrl: string): string {
  const url = new URL(smtpUrl);
  const defaults = { connectionTimeout: '10000', greetingTimeout: '10000', socketTimeout: '30000' };
  for (const [key, value] of Object.entries(defaults)) {
    if (!url.searchParams.has(key)) url.searchParams.set(key, value);
  }
  return url.toString();
}

/** MAIL_FROM, else the SMTP user when it is an address, else no-reply@localhost. */
export function mailFrom(config: AppConfig): string {
  if (config.MAIL_FROM) return config.MAIL_FROM;
  const user = config.SMTP_URL ? decodeURIComponent(new URL(config.SMTP_URL).username) : '';
  return user.includes('@') ? user : 'no-reply@localhost';
}
