import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { Brackets, EntityManager, Repository } from 'typeorm';
import { Clock } from '../../common/clock';
import type { NotifyChannel } from '../../strategy/strategy.types';
import { NotificationKind, NotificationPayload, NotificationStatus } from '../notification.types';
import { NotificationEntity } from './notification.entity';

/**
 * The `sys_notification` table as a queue: add rows, find due ones, claim one
 * atomically, and record the outcome. Every outcome update is conditional on
 * still holding the claim, so an instance whose lease was taken over cannot
 * overwrite the new owner's result.
 */
@Injectable()
export class NotificationOutbox {
  constructor(
    @InjectRepository(NotificationEntity) private readonly rows: Repository<NotificationEntity>,
    private readonly clock: Clock,
  ) {}

  /** One pending row per channel, in one INSERT (so all or none), in the caller's transaction when given. */
  async add(
    userId: string, kind: NotificationKind, channels: NotifyChannel[], payload: NotificationPayload, manager?: EntityManager,
  ): Promise<string[]> {
    const unique = [...new Set(channels)];
    if (!unique.length) return [];
    const now = this.clock.now();
    const json = JSON.stringify(payload);
    const rows = unique.map((channel) => ({
      id: randomUUID(), userId, channel, kind, payload: json, status: NotificationStatus.PENDING,
      attempts: 0, nextAttemptAt: now, lastError: null, claimedBy: null, claimedUntil: null, createTime: now, sentTime: null,
    }));
    await (manager ?? this.rows.manager).insert(NotificationEntity, rows);
    return rows.map((r) => r.id);
  }

  /** Ids of pending rows that are due and not held by a live claim, oldest first. */
  async dueIds(now: Date, limit: number): Promise<string[]> {
    const found = await this.rows.createQueryBuilder('n').select('n.id', 'id')
      .where('n.status = :pending', { pending: NotificationStatus.PENDING })
      .andWhere('n.next_attempt_at <= :now', { now })
      .andWhere(new Brackets((w) => w.where('n.claimed_by IS NULL').orWhere('n.claimed_until < :now', { now })))
      .orderBy('n.next_attempt_at', 'ASC').addOrderBy('n.id', 'ASC')
      .limit(limit)
      .getRawMany<{ id: string }>();
    return found.map((r) => r.id);
  }

  /**
   * Takes the row for `owner` until now + leaseMs, counting the attempt. The
   * conditional UPDATE is the whole lock: of any number of instances racing for
   * a row, exactly one sees one affected row. Null when another one won.
   */
  async claim(id: string, owner: string, now: Date, leaseMs: number): Promise<NotificationEntity | null> {
    const result = await this.rows.createQueryBuilder().update(NotificationEntity)
      .set({ claimedBy: owner, claimedUntil: new Date(now.getTime() + leaseMs), attempts: () => 'attempts + 1' })
      .where('id = :id', { id })
      .andWhere('status = :pending', { pending: NotificationStatus.PENDING })
      .andWhere('next_attempt_at <= :now', { now })
      .andWhere(new Brackets((w) => w.where('claimed_by IS NULL').orWhere('claimed_until < :now', { now })))
      .execute();
    if (result.affected !== 1) return null;
    return this.rows.findOne({ where: { id, claimedBy: owner } });
  }

  async markSent(id: string, owner: string): Promise<void> {
    await this.finishIfOwned(id, owner, { status: NotificationStatus.SENT, sentTime: this.clock.now() });
  }

  /** failed or not_configured, with the reason; never retried. */
  async markFinal(id: string, owner: string, status: NotificationStatus.FAILED | NotificationStatus.NOT_CONFIGURED, reason: string): Promise<void> {
    await this.finishIfOwned(id, owner, { status, lastError: reason });
  }

  /** Still pending; due again at `next`. */
  async markRetry(id: string, owner: string, next: Date, reason: string): Promise<void> {
    await this.finishIfOwned(id, owner, { nextAttemptAt: next, lastError: reason });
  }

  private async finishIfOwned(id: string, owner: string, changes: Partial<NotificationEntity>): Promise<void> {
    await this.rows.createQueryBuilder().update(NotificationEntity)
      .set({ ...changes, claimedBy: null, claimedUntil: null })
      .where('id = :id', { id }).andWhere('claimed_by = :owner', { owner })
      .execute();
  }
}
