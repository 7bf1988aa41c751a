import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { MailerModule } from '@nestjs-modules/mailer';

import { AppConfig } from '../config/app-config';
import { SessionModule } from '../session/session.module';
import { StrategyModule } from '../strategy/strategy.module';
import { UserAccountModule } from '../user-account/user-account.module';
import { EmailChannel, mailFrom, smtpTransportUrl } from './channels/email.channel';
import { EmailTemplates } from './channels/email-templates';
import { NotificationChannels } from './channels/notification-channels';
import { SiteChannel } from './channels/site.channel';
import { SmsChannel } from './channels/sms.channel';
import { SmsProvider, WebhookSmsProvider } from './channels/sms.provider';
import { AliyunSmsProvider, TencentSmsProvider } from './channels/sms-template.providers';
import { InitialPasswordListener } from './initial-password.listener';
import { LoginAttackListener } from './login-attack.listener';
import { LoginNotificationListener } from './login-notification.listener';
import { MessageController } from './message/message.controller';
import { MessageEntity } from './message/message.entity';
import { MessageRepository } from './message/message.repository';
import { MessageService } from './message/message.service';
import { MessagePushService } from './message/message-push.service';
import { StreamSlots } from './message/stream-slots';
import { NotificationService } from './notification.service';
import { NOTIFICATION_CHANNELS } from './notification.types';
import { NotificationRecipients } from './notification-recipients';
import { NotificationEntity } from './outbox/notification.entity';
import { NotificationRepository } from './outbox/notification.repository';
import { NotificationOutbox } from './outbox/notification-outbox';
import { OutboxWorker } from './outbox/outbox.worker';
import { PasswordExpiryReminderService } from './reminder/password-expiry-reminder.service';
import { PasswordReminderEntity } from './reminder/password-reminder.entity';
import { ReminderRepository } from './reminder/reminder.repository';

/**
 * E-mail, SMS and site notifications of abnormal logins and unusual
 * IPs, and password-expiry reminders, all through one outbox (sys_notification)
 * that survives restarts and is delivered exactly once per row across instances.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([NotificationEntity, MessageEntity, PasswordReminderEntity]),
    MailerModule.forRootAsync({
      imports: [],
      inject: [AppConfig],
      useFactory: (config: AppConfig) => ({
        // Without SMTP_URL the e-mail channel records not_configured and never reaches the transport.
        transport: config.SMTP_URL ? smtpTransportUrl(config.SMTP_URL) : { jsonTransport: true },
        defaults: { from: mailFrom(config) },
        sendTimeout: 60_000,
      }),
    }),
    StrategyModule,
    UserAccountModule,
    SessionModule,
  ],
  controllers: [MessageController],
  providers: [
    NotificationRepository,
    MessageRepository,
    ReminderRepository,
    NotificationOutbox,
    OutboxWorker,
    NotificationService,
    NotificationRecipients,
    LoginAttackListener,
    LoginNotificationListener,
    InitialPasswordListener,
    PasswordExpiryReminderService,
    MessageService,
    MessagePushService,
    StreamSlots,
    EmailTemplates,
    EmailChannel,
    SmsChannel,
    SiteChannel,
    NotificationChannels,
    {
      provide: SmsProvider,
      inject: [AppConfig],
      useFactory: (config: AppConfig): SmsProvider => {
        if (config.SMS_PROVIDER === 'aliyun') return new AliyunSmsProvider(config);
        if (config.SMS_PROVIDER === 'tencent') return new TencentSmsProvider(config);
        return new WebhookSmsProvider(config);
      },
    },
    NOTIFICATION_CHANNELS.provide(EmailChannel, SmsChannel, SiteChannel),
  ],
  // The one-time codes of src/otp have channels of their own that send through the same transports.
  exports: [
    NotificationService,
    NotificationChannels,
    MessageService,
    SmsProvider,
    EmailTemplates,
    NotificationRecipients,
  ],
})
export class NotificationModule {}
