import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { LessThan, Repository } from 'typeorm';

import { WebhookDeliveryEntity, WebhookEntity } from './webhook.entity';

/** `sys_webhook` and `sys_webhook_delivery`: the only place that queries them. */
@Injectable()
export class WebhookRepository {
  constructor(
    @InjectRepository(WebhookEntity) private readonly hooks: Repository<WebhookEntity>,
    @InjectRepository(WebhookDeliveryEntity) private readonly tries: Repository<WebhookDeliveryEntity>,
  ) {}

  async insert(row: WebhookEntity): Promise<void> {
    await this.hooks.insert(row);
  }

  /** True when the webhook was there to change. */
  async update(
    id: string,
    changes: Pick<WebhookEntity, 'url' | 'events' | 'enabled' | 'updateTime'>,
  ): Promise<boolean> {
    const result = await this.hooks.update({ id }, changes);
    return (result.affected ?? 0) > 0;
  }

  /** Replaces a secret by its re-encryption, unless it changed meanwhile (another instance). */
  async replaceSecret(id: string, was: string, now: string): Promise<boolean> {
    const result = await this.hooks.update({ id, secret: was }, { secret: now });
    return (result.affected ?? 0) === 1;
  }

  byId(id: string): Promise<WebhookEntity | null> {
    return this.hooks.findOne({ where: { id } });
  }

  /** Oldest first, so that a list keeps its order as webhooks are added. */
  all(): Promise<WebhookEntity[]> {
    return this.hooks.find({ order: { createTime: 'ASC', id: 'ASC' } });
  }

  /** Oldest first, as the list. */
  enabled(): Promise<WebhookEntity[]> {
    return this.hooks.find({ where: { enabled: true }, order: { createTime: 'ASC', id: 'ASC' } });
  }

  /** The webhook and its delivery log, in one transaction; true when it was there. */
  async delete(id: string): Promise<boolean> {
    return this.hooks.manager.transaction(async (tx) => {
      const result = await tx.delete(WebhookEntity, { id });
      await tx.delete(WebhookDeliveryEntity, { webhookId: id });
      return (result.affected ?? 0) > 0;
    });
  }

  async recordTry(row: Omit<WebhookDeliveryEntity, 'id'>): Promise<void> {
    await this.tries.insert(row);
  }

  /** The tries of one webhook, newest first. */
  pageTries(webhookId: string, pageNum: number, pageSize: number): Promise<[WebhookDeliveryEntity[], number]> {
    return this.tries.findAndCount({
      where: { webhookId },
      order: { attemptTime: 'DESC', id: 'DESC' },
      skip: (pageNum - 1) * pageSize,
      take: pageSize,
    });
  }

  /** Deletes the webhook's tries made before `before` (the delivery log keeps a few weeks). */
  async pruneTries(webhookId: string, before: Date): Promise<void> {
    await this.tries.delete({ webhookId, attemptTime: LessThan(before) });
  }
}
