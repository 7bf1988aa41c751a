import { randomUUID } from 'node:crypto';

import { Injectable } from '@nestjs/common';

import { actedBy, AuditLogService, changedFields } from '../audit/audit-log.service';
import { AppException } from '../common/app.exception';
import type { Actor } from '../common/auth-context';
import { Clock } from '../common/clock';
import { ErrorCode } from '../common/error-code';
import { Page } from '../common/paging.dto';
import { NotificationService } from '../notification/notification.service';
import { ListWebhookDeliveriesDto, SaveWebhookDto, WebhookDeliveryDto, WebhookDto } from './dto/webhook.dto';
import { WebhookCache } from './webhook.cache';
import { WebhookChannel } from './webhook.channel';
import { WebhookEntity } from './webhook.entity';
import { WebhookPublisher } from './webhook.publisher';
import { WebhookRepository } from './webhook.repository';
import { eventsOf, WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_EVENT } from './webhook-events';
import { newWebhookSecret, WebhookSecrets } from './webhook-secret';

/**
 * The administration of webhooks: save (create, with its secret shown once, or update), list,
 * delete (its messages still queued end with it), the delivery log, and a test message. Saves and
 * deletes are audited, without the secret, and announced to every instance's WebhookCache.
 */
@Injectable()
export class WebhookService {
  constructor(
    private readonly webhooks: WebhookRepository,
    private readonly cache: WebhookCache,
    private readonly secrets: WebhookSecrets,
    private readonly publisher: WebhookPublisher,
    private readonly notifications: NotificationService,
    private readonly channel: WebhookChannel,
    private readonly audit: AuditLogService,
    private readonly clock: Clock,
  ) {}

  async save(dto: SaveWebhookDto, actor: Actor): Promise<{ id: string; secret?: string }> {
    // Stored in the registry's order, each once, whatever order the client sent.
    const events = WEBHOOK_EVENT_TYPES.filter((type) => dto.events.includes(type));
    const settings = { url: dto.url, events, enabled: dto.enabled };
    const now = this.clock.now();
    if (dto.id !== undefined) {
      const before = await this.webhooks.byId(dto.id);
      if (!before) throw new AppException(ErrorCode.NOT_FOUND);
      if (!(await this.webhooks.update(before.id, { ...settings, events: JSON.stringify(events), updateTime: now })))
        throw new AppException(ErrorCode.NOT_FOUND);
      await this.cache.announce();
      await this.audit.recordDone('webhook.save', {
        ...actedBy(actor),
        targetId: before.id,
        detail: { url: dto.url, ...changedFields(settingsOf(before), settings) },
      });
      return { id: before.id };
    }
    const id = randomUUID();
    const secret = newWebhookSecret();
    await this.webhooks.insert({
      id,
      ...settings,
      events: JSON.stringify(events),
      secret: this.secrets.seal(secret),
      createTime: now,
      updateTime: now,
    });
    await this.cache.announce();
    await this.audit.recordDone('webhook.save', {
      ...actedBy(actor),
      targetId: id,
      detail: { url: dto.url, ...changedFields(null, settings) },
    });
    return { id, secret };
  }

  async list(): Promise<WebhookDto[]> {
    return (await this.webhooks.all()).map((hook) => ({
      id: hook.id,
      ...settingsOf(hook),
      createTime: hook.createTime.toISOString(),
      updateTime: hook.updateTime.toISOString(),
    }));
  }

  /** The webhook, its delivery log and its messages not yet delivered (they fail as `webhook deleted`). */
  async delete(id: string, actor: Actor): Promise<void> {
    const hook = await this.webhooks.byId(id);
    if (!hook || !(await this.webhooks.delete(hook.id))) throw new AppException(ErrorCode.NOT_FOUND);
    // Before the queued messages are ended: the next events here queue none for it.
    await this.cache.announce();
    await this.notifications.cancelPending(this.channel, hook.id, 'the webhook was deleted');
    await this.audit.recordDone('webhook.delete', {
      ...actedBy(actor),
      targetId: hook.id,
      detail: { url: hook.url },
    });
  }

  /** Newest first. */
  async deliveries(q: ListWebhookDeliveriesDto): Promise<Page<WebhookDeliveryDto>> {
    const hook = await this.webhooks.byId(q.id);
    if (!hook) throw new AppException(ErrorCode.NOT_FOUND);
    const [rows, total] = await this.webhooks.pageTries(hook.id, q.pageNum, q.pageSize);
    return {
      total,
      rows: rows.map((r) => ({
        id: String(r.id),
        messageId: r.messageId,
        eventType: r.eventType,
        attempt: r.attempt,
        time: r.attemptTime.toISOString(),
        httpStatus: r.httpStatus,
        error: r.error,
        durationMs: r.durationMs,
        success: !!r.success,
      })),
    };
  }

  /**
   * A `webhook.test` message to this webhook, through the outbox like any event (signed, retried,
   * logged), enabled or not; its data names who sent it.
   */
  async test(id: string, actor: Actor): Promise<{ messageId: string }> {
    const hook = await this.webhooks.byId(id);
    if (!hook) throw new AppException(ErrorCode.NOT_FOUND);
    const messageId = await this.publisher.send(hook.id, {
      type: WEBHOOK_TEST_EVENT,
      timestamp: this.clock.now().toISOString(),
      data: { userId: actor.id, username: actor.name, webhookId: hook.id },
    });
    return { messageId };
  }
}

function settingsOf(hook: WebhookEntity) {
  return { url: hook.url, events: eventsOf(hook), enabled: !!hook.enabled };
}
