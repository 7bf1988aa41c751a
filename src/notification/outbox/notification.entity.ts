import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

import { DATETIME } from '../../common/datetime';
import { NotificationStatus } from '../notification.types';

/**
 * `sys_notification`: the outbox. One row per notification and channel, written
 * when the event fires, delivered by the outbox worker of whichever instance
 * claims it first (claimed_by / claimed_until).
 */
@Entity('sys_notification')
// The worker's "due rows" scan.
@Index('idx_notification_status_due', ['status', 'nextAttemptAt'])
export class NotificationEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ name: 'user_id', type: 'varchar', length: 36 })
  userId: string;

  @Column({ type: 'varchar', length: 16 })
  channel: string;

  /** A NotificationKind, or the kind an added channel gives its own rows (src/webhook: an event type). */
  @Column({ type: 'varchar', length: 32 })
  kind: string;

  /** JSON of the kind's payload (notification.types.ts, or the added channel's own). */
  @Column({ type: 'text' })
  payload: string;

  @Column({ type: 'varchar', length: 16 })
  status: NotificationStatus;

  @Column({ type: 'int', default: 0 })
  attempts: number;

  @Column({ ...DATETIME, name: 'next_attempt_at' })
  nextAttemptAt: Date;

  @Column({ name: 'last_error', type: 'varchar', length: 512, nullable: true })
  lastError: string | null;

  @Column({ name: 'claimed_by', type: 'varchar', length: 64, nullable: true })
  claimedBy: string | null;

  @Column({ ...DATETIME, name: 'claimed_until', nullable: true })
  claimedUntil: Date | null;

  @Column({ ...DATETIME, name: 'create_time' })
  createTime: Date;

  @Column({ ...DATETIME, name: 'sent_time', nullable: true })
  sentTime: Date | null;
}
