import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Brackets, EntityManager, Repository } from 'typeorm';

import { NotificationStatus, SECRET_KINDS } from '../notification.types';
import { NotificationEntity } from './notification.entity';

/**
 * `sys_notification`: the only place that queries it. The claim and every outcome are single
 * conditional UPDATEs; the conditions are the outbox's whole locking (see NotificationOutbox).
 */
@Injectable()
export class NotificationRepository {
  constructor(@InjectRepository(NotificationEntity) private readonly rows: Repository<NotificationEntity>) {}

  /** The rows in one INSERT (so all or none), in the caller's transaction when given. */
  async insert(rows: NotificationEntity[], tx?: EntityManager): Promise<void> {
    await (tx ?? this.rows.manager).insert(NotificationEntity, rows);
  }

  /** Ids of pending rows that are due at `now` and not held by a live claim, oldest first. */
  async dueIds(now: Date, limit: number): Promise<string[]> {
    const found = await this.rows
      .createQueryBuilder('n')
      .select('n.id', 'id')
      .where('n.status = :pending', { pending: NotificationStatus.PENDING })
      .andWhere('n.next_attempt_at <= :now', { now })
      .andWhere(new Brackets((w) => w.where('n.claimed_by IS NULL').orWhere('n.claimed_until < :now', { now })))
      .orderBy('n.next_attempt_at', 'ASC')
      .addOrderBy('n.id', 'ASC')
      .limit(limit)
      .getRawMany<{ id: string }>();
    return found.map((r) => r.id);
  }

  /**
   * Claims the row for `owner` until `until` and counts the attempt, if it is still pending, due
   * and free at `now`: of any number of callers racing for a row, exactly one gets it back. Null
   * for the others.
   */
  async claimDue(id: string, owner: string, now: Date, until: Date): Promise<NotificationEntity | null> {
    const result = await this.rows
      .createQueryBuilder()
      .update(NotificationEntity)
      .set({ claimedBy: owner, claimedUntil: until, attempts: () => 'attempts + 1' })
      .where('id = :id', { id })
      .andWhere('status = :pending', { pending: NotificationStatus.PENDING })
      .andWhere('next_attempt_at <= :now', { now })
      .andWhere(new Brackets((w) => w.where('claimed_by IS NULL').orWhere('claimed_until < :now', { now })))
      .execute();
    if (result.affected !== 1) return null;
    return this.rows.findOne({ where: { id, claimedBy: owner } });
  }

  async markSent(id: string, owner: string, sentTime: Date): Promise<void> {
    await this.releaseIfOwned(id, owner, { status: NotificationStatus.SENT, sentTime });
  }

  async markFinal(
    id: string,
    owner: string,
    status: NotificationStatus.FAILED | NotificationStatus.NOT_CONFIGURED,
    reason: string,
  ): Promise<void> {
    await this.releaseIfOwned(id, owner, { status, lastError: reason });
  }

  /** Every pending row of `userId` on `channel` becomes failed with `reason`, claimed or not. */
  async failPending(channel: string, userId: string, reason: string): Promise<void> {
    await this.rows
      .createQueryBuilder()
      .update(NotificationEntity)
      .set({ status: NotificationStatus.FAILED, lastError: reason })
      .where('channel = :channel', { channel })
      .andWhere('user_id = :userId', { userId })
      .andWhere('status = :pending', { pending: NotificationStatus.PENDING })
      .execute();
  }

  async markRetry(id: string, owner: string, next: Date, reason: string): Promise<void> {
    await this.releaseIfOwned(id, owner, { nextAttemptAt: next, lastError: reason });
  }

  /**
   * Records an outcome and drops the claim, only while `owner` still holds it. A final outcome
   * blanks the payload of a secret kind (an initial password), which is no longer needed.
   */
  private async releaseIfOwned(id: string, owner: string, changes: Partial<NotificationEntity>): Promise<void> {
    const final = changes.status !== undefined;
    const kinds = SECRET_KINDS.map((k) => `'${k}'`).join(', ');
    await this.rows
      .createQueryBuilder()
      .update(NotificationEntity)
      .set({
        ...changes,
        claimedBy: null,
        claimedUntil: null,
        ...(final ? { payload: () => `CASE WHEN kind IN (${kinds}) THEN '{}' ELSE payload END` } : {}),
      })
      .where('id = :id', { id })
      .andWhere('claimed_by = :owner', { owner })
      .execute();
  }
}
