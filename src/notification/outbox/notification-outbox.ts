import { randomUUID } from 'node:crypto';

import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

import { Clock } from '../../common/clock';
import { NotificationStatus } from '../notification.types';
import { NotificationEntity } from './notification.entity';
import { NotificationRepository } from './notification.repository';

/**
 * The `sys_notification` table as a queue: add rows, find due ones, claim one
 * atomically, and record the outcome. Every outcome update is conditional on
 * still holding the claim, so an instance whose lease was taken over cannot
 * overwrite the new owner's result.
 */
@Injectable()
export class NotificationOutbox {
  constructor(
    private readonly rows: NotificationRepository,
    private readonly clock: Clock,
  ) {}

  /** One pending row per channel, in one INSERT (so all or none), in the caller's transaction when given. */
  async add(
    userId: string,
    kind: string,
    channels: string[],
    payload: unknown,
    manager?: EntityManager,
  ): Promise<string[]> {
    const unique = [...new Set(channels)];
    if (!unique.length) return [];
    const now = this.clock.now();
    const json = JSON.stringify(payload);
    const rows: NotificationEntity[] = unique.map((channel) => ({
      id: randomUUID(),
      userId,
      channel,
      kind,
      payload: json,
      status: NotificationStatus.PENDING,
      attempts: 0,
      nextAttemptAt: now,
      lastError: null,
      claimedBy: null,
      claimedUntil: null,
      createTime: now,
      sentTime: null,
    }));
    await this.rows.insert(rows, manager);
    return rows.map((r) => r.id);
  }

  /** Ids of pending rows that are due and not held by a live claim, oldest first. */
  dueIds(now: Date, limit: number): Promise<string[]> {
    return this.rows.dueIds(now, limit);
  }

  /**
   * Takes the row for `owner` until now + leaseMs, counting the attempt. The
   * conditional UPDATE is the whole lock: of any number of instances racing for
   * a row, exactly one sees one affected row. Null when another one won.
   */
  claim(id: string, owner: string, now: Date, leaseMs: number): Promise<NotificationEntity | null> {
    return this.rows.claimDue(id, owner, now, new Date(now.getTime() + leaseMs));
  }

  async markSent(id: string, owner: string): Promise<void> {
    await this.rows.markSent(id, owner, this.clock.now());
  }

  /** failed or not_configured, with the reason; never retried. */
  async markFinal(
    id: string,
    owner: string,
    status: NotificationStatus.FAILED | NotificationStatus.NOT_CONFIGURED,
    reason: string,
  ): Promise<void> {
    await this.rows.markFinal(id, owner, status, reason);
  }

  /**
   * Ends the pending rows of `recipient` on `channel` as failed with `reason` (their recipient went
   * away: a webhook deleted). A row being delivered right now keeps its claim and finishes.
   */
  async cancelPending(channel: string, recipient: string, reason: string): Promise<void> {
    await this.rows.failPending(channel, recipient, reason);
  }

  /** Still pending; due again at `next`. */
  async markRetry(id: string, owner: string, next: Date, reason: string): Promise<void> {
    await this.rows.markRetry(id, owner, next, reason);
  }
}
