import { Injectable } from '@nestjs/common';
import { MailerService } from '@nestjs-modules/mailer';

import { text } from '../common/texts';
import { AppConfig } from '../config/app-config';
import { MfaCrypto } from '../mfa/mfa-crypto';
import { EmailTemplates } from '../notification/channels/email-templates';
import { SmsProvider, SmsTemplateName } from '../notification/channels/sms.provider';
import { NOTIFICATION_LOCALE } from '../notification/notification.constants';
import {
  ChannelNotConfiguredError,
  Delivery,
  NotificationChannel,
  PermanentDeliveryError,
} from '../notification/notification.types';
import { NotificationContent } from '../notification/notification-content';
import { NotificationRecipients } from '../notification/notification-recipients';
import { OTP_TTL_MS, OtpPurpose } from './otp.types';

/** The outbox kind of a code's row: `otp-login`, `otp-reset`, `otp-mfa`. */
export type OtpKind = `otp-${OtpPurpose}`;

/**
 * What an outbox row of a code keeps: the code and its recipient sealed under the service's key
 * (MfaCrypto), so that neither a copy of sys_notification nor anyone reading it learns a live code;
 * the recipient is the one the send answered (masked) and counted, whatever the account holds by delivery.
 */
export interface OtpPayload {
  purpose: OtpPurpose;
  sealedCode: string;
  sealedTo: string;
}

const TITLES = {
  login: 'notification.otpLoginTitle',
  reset: 'notification.otpResetTitle',
  mfa: 'notification.otpMfaTitle',
  'confirm-sms': 'notification.otpConfirmTitle',
  'confirm-email': 'notification.otpConfirmTitle',
} as const;

/** The text of a code, as both channels show it. */
export function otpContent(purpose: OtpPurpose, code: string): NotificationContent {
  const minutes = OTP_TTL_MS / 60_000;
  return {
    title: text(TITLES[purpose], NOTIFICATION_LOCALE),
    lead: text('notification.otpLead', NOTIFICATION_LOCALE, { code, minutes }),
    fields: [],
    advice: text('notification.otpAdvice', NOTIFICATION_LOCALE),
  };
}

/**
 * A template-only provider's template for a purpose: a new mobile's confirmation code reads like a
 * verification code, so it borrows the second factor's (no new SMS_TEMPLATE_* to register).
 */
function smsTemplateOf(purpose: OtpPurpose): SmsTemplateName {
  return purpose === 'login' || purpose === 'reset' ? purpose : 'mfa';
}

/** `otp-sms`: a code by text message, through the configured SmsProvider (its template for the purpose). */
@Injectable()
export class OtpSmsChannel extends NotificationChannel<OtpPayload, OtpKind> {
  readonly name = 'otp-sms';
  // A code lives 5 minutes: a few quick retries, then the row is given up (the user asks again).
  override readonly retry = { maxAttempts: 3, delayMs: (n: number) => n * 5_000 };

  constructor(
    private readonly provider: SmsProvider,
    private readonly crypto: MfaCrypto,
  ) {
    super();
  }

  async deliver(delivery: Delivery<OtpPayload, OtpKind>): Promise<void> {
    if (!this.provider.configured) throw new ChannelNotConfiguredError(this.provider.missing);
    const { purpose, sealedCode, sealedTo } = delivery.payload;
    const code = this.crypto.decrypt(sealedCode);
    const content = otpContent(purpose, code);
    await this.provider.send({
      id: delivery.id,
      to: this.crypto.decrypt(sealedTo),
      text: `【${content.title}】${content.lead}。${content.advice}`,
      kind: delivery.kind,
      template: { name: smsTemplateOf(purpose), params: { code } },
    });
  }
}

/** `otp-email`: a code by e-mail over SMTP_URL. */
@Injectable()
export class OtpEmailChannel extends NotificationChannel<OtpPayload, OtpKind> {
  readonly name = 'otp-email';
  override readonly retry = { maxAttempts: 3, delayMs: (n: number) => n * 5_000 };

  constructor(
    private readonly mailer: MailerService,
    private readonly templates: EmailTemplates,
    private readonly recipients: NotificationRecipients,
    private readonly crypto: MfaCrypto,
    private readonly config: AppConfig,
  ) {
    super();
  }

  async deliver(delivery: Delivery<OtpPayload, OtpKind>): Promise<void> {
    if (!this.config.SMTP_URL) throw new ChannelNotConfiguredError('SMTP_URL is not set');
    const user = await this.recipients.get(delivery.userId);
    const { purpose, sealedCode, sealedTo } = delivery.payload;
    const content = otpContent(purpose, this.crypto.decrypt(sealedCode));
    const mail = this.templates.render(content, user.name || user.username, NOTIFICATION_LOCALE);
    try {
      await this.mailer.sendMail({
        to: this.crypto.decrypt(sealedTo),
        subject: mail.subject,
        html: mail.html,
        text: mail.text,
        headers: {
          'X-Notification-Id': delivery.id,
          'Auto-Submitted': 'auto-generated',
          'X-Auto-Response-Suppress': 'All',
        },
      });
    } catch (err) {
      const e = err as { code?: string; responseCode?: number };
      if (e.code === 'EENVELOPE' && (e.responseCode ?? 0) >= 500) throw new PermanentDeliveryError('recipient refused');
      throw err;
    }
  }
}
