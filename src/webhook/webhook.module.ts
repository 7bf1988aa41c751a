import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { AuditModule } from '../audit/audit.module';
import { MfaModule } from '../mfa/mfa.module';
import { NotificationModule } from '../notification/notification.module';
import { NOTIFICATION_CHANNELS } from '../notification/notification.types';
import { UserAccountModule } from '../user-account/user-account.module';
import { WebhookCache } from './webhook.cache';
import { WebhookChannel } from './webhook.channel';
import { WebhookController } from './webhook.controller';
import { WebhookDeliveryEntity, WebhookEntity } from './webhook.entity';
import { WebhookPublisher } from './webhook.publisher';
import { WebhookRepository } from './webhook.repository';
import { WebhookService } from './webhook.service';
import { WebhookEventListener } from './webhook-event.listener';
import { WebhookSecrets } from './webhook-secret';

/**
 * Webhooks: events (logins, account changes, ended sessions, second-factor changes) told to other
 * systems by signed HTTP POSTs through the notification outbox, as its `webhook` channel. Listens
 * to the events the other modules announce; none of them depends on it.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([WebhookEntity, WebhookDeliveryEntity]),
    NotificationModule,
    AuditModule,
    MfaModule,
    UserAccountModule,
  ],
  controllers: [WebhookController],
  providers: [
    WebhookRepository,
    WebhookCache,
    WebhookSecrets,
    WebhookChannel,
    WebhookPublisher,
    WebhookService,
    WebhookEventListener,
    NOTIFICATION_CHANNELS.provide(WebhookChannel),
  ],
})
export class WebhookModule {}
