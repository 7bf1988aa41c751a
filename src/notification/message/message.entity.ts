import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

import { DATETIME } from '../../common/datetime';
import { NotificationKind } from '../notification.types';

/**
 * `sys_message`: the site channel's message centre.
 * A message delivered from the outbox takes the outbox row's id, so a retried
 * delivery can never store it twice.
 */
@Entity('sys_message')
@Index('idx_message_user_read_time', ['userId', 'read', 'createTime'])
export class MessageEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ name: 'user_id', type: 'varchar', length: 36 })
  userId: string;

  @Column({ type: 'varchar', length: 32 })
  kind: NotificationKind;

  @Column({ type: 'varchar', length: 200 })
  title: string;

  @Column({ type: 'text' })
  content: string;

  /** `read` is a reserved word in MySQL, hence is_read. */
  @Column({ name: 'is_read', type: 'boolean', default: false })
  read: boolean;

  @Column({ ...DATETIME, name: 'create_time' })
  createTime: Date;
}
