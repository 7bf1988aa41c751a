import { Injectable } from '@nestjs/common';

import { NotificationService } from '../notification/notification.service';
import { WebhookCache } from './webhook.cache';
import { WebhookChannel } from './webhook.channel';
import { WebhookEvent, WebhookMessage } from './webhook-events';

/**
 * Puts events into the outbox: one message per enabled webhook subscribed to the event's type,
 * delivered by WebhookChannel. Only the instance where the event happened queues it, and the outbox
 * hands each message to one instance, so a cluster sends each once.
 */
@Injectable()
export class WebhookPublisher {
  constructor(
    private readonly webhooks: WebhookCache,
    private readonly notifications: NotificationService,
    private readonly channel: WebhookChannel,
  ) {}

  /**
   * `event` to every enabled webhook subscribed to its type. `complete` adds to its data what costs a
   * query (a user name), only when some webhook wants the event: most logins have no subscriber.
   */
  async publish(
    event: WebhookEvent,
    complete?: (data: WebhookEvent['data']) => Promise<WebhookEvent['data']>,
  ): Promise<void> {
    const hooks = (await this.webhooks.enabled()).filter((hook) => hook.events.has(event.type));
    if (!hooks.length) return;
    const data = complete ? await complete(event.data) : event.data;
    const message: WebhookMessage = { type: event.type, timestamp: event.time.toISOString(), data };
    for (const hook of hooks) await this.send(hook.id, message);
  }

  /** One message to one webhook, whatever it subscribed to; answers its id (the `webhook-id` header). */
  send(webhookId: string, message: WebhookMessage): Promise<string> {
    return this.notifications.sendTo(this.channel, webhookId, message.type, message);
  }
}
