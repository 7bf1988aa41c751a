import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

import { NotificationKind, NotificationPayload } from './notification.types';
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
