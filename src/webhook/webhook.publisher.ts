import { Injectable } from '@nestjs/common';

import { NotificationService } from '../notification/notification.service';
import { WebhookChannel } from './webhook.channel';
import { WebhookEntity } from './webhook.entity';
import { WebhookRepository } from './webhook.repository';
import { WebhookEvent, WebhookEventType, WebhookMessage } from './webhook-events';

/** The event types a webhook subscribed to, as stored. */
export const eventsOf = (hook: Pick<WebhookEntity, 'events'>): WebhookEventType[] =>
  JSON.parse(hook.events) as WebhookEventType[];

/**
 * Puts events into the outbox: one message per enabled webhook subscribed to the event's type,
 * delivered by WebhookChannel. Only the instance where the event happened queues it, and the outbox
 * hands each message to one instance, so a cluster sends each once.
 */
@Injectable()
export class WebhookPublisher {
  constructor(
    private readonly webhooks: WebhookRepository,
    private readonly notifications: NotificationService,
    private readonly channel: WebhookChannel,
  ) {}

  async publish(event: WebhookEvent): Promise<void> {
    const message: WebhookMessage = { type: event.type, timestamp: event.time.toISOString(), data: event.data };
    for (const hook of await this.webhooks.enabled()) {
      if (eventsOf(hook).includes(event.type)) await this.send(hook.id, message);
    }
  }

  /** One message to one webhook, whatever it subscribed to; answers its id (the `webhook-id` header). */
  send(webhookId: string, message: WebhookMessage): Promise<string> {
    return this.notifications.sendTo(this.channel, webhookId, message.type, message);
  }
}
