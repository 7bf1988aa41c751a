import { Column, Entity, PrimaryColumn } from 'typeorm';

import { DATETIME } from '../../common/datetime';

/**
 * `sys_password_reminder`: one row per user and password expiry time that has
 * been reminded. Its primary key makes the reminder once-per-period and lets
 * exactly one instance of a cluster send it.
 */
@Entity('sys_password_reminder')
export class PasswordReminderEntity {
  @PrimaryColumn({ name: 'user_id', type: 'varchar', length: 36 })
  userId: string;

  @PrimaryColumn({ ...DATETIME, name: 'expire_time' })
  expireTime: Date;

  @Column({ ...DATETIME, name: 'create_time' })
  createTime: Date;
}
