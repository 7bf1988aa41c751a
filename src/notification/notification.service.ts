import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

import {
  AnyNotificationChannel,
  NotificationChannel,
  NotificationKind,
  NotificationPayload,
} from './notification.types';
import { NotificationOutbox } from './outbox/notification-outbox';
import { OutboxWorker } from './outbox/outbox.worker';

/**
 * The entry point for anyone who wants to tell a user something: writes one
 * outbox row per channel (durable before this returns) and nudges the worker,
 * which delivers asynchronously.
 */
@Injectable()
export class NotificationService {
  constructor(
    private readonly outbox: NotificationOutbox,
    private readonly worker: OutboxWorker,
  ) {}

  async notify(
    userId: string,
    kind: NotificationKind,
    channels: string[],
    payload: NotificationPayload,
  ): Promise<string[]> {
    const ids = await this.outbox.add(userId, kind, channels, payload);
    if (ids.length) this.worker.kick();
    return ids;
  }

  /**
   * For a channel a module adds for rows of its own (src/webhook): one row to `recipient` with the
   * module's own kind and payload, delivered, retried and recorded like every other. Answers the
   * row's id, which the channel sees as Delivery.id on every try.
   */
  async sendTo<P, K extends string>(
    channel: NotificationChannel<P, K>,
    recipient: string,
    kind: K,
    payload: P,
  ): Promise<string> {
    const [id] = await this.outbox.add(recipient, kind, [channel.name], payload);
    this.worker.kick();
    return id;
  }

  /** Ends what is still pending for `recipient` on `channel` (the recipient went away), as failed with `reason`. */
  cancelPending(channel: AnyNotificationChannel, recipient: string, reason: string): Promise<void> {
    return this.outbox.cancelPending(channel.name, recipient, reason);
  }

  /** Rows inside the caller's transaction; the caller kicks the worker after commit. */
  enqueue(
    manager: EntityManager,
    userId: string,
    kind: NotificationKind,
    channels: string[],
    payload: NotificationPayload,
  ): Promise<string[]> {
    return this.outbox.add(userId, kind, channels, payload, manager);
  }

  /** Delivers what is due now (after a transaction that used enqueue, and in tests). */
  deliverDue(): Promise<void> {
    return this.worker.drain();
  }

  kick(): void {
    this.worker.kick();
  }
}
