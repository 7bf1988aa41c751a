import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

import { DATETIME } from '../common/datetime';

/**
 * `sys_password_history`: the BCrypt hashes of a user's previous passwords (the current
 * one is sys_user.password), newest the highest id, at most passwordHistoryCount − 1 per user.
 */
@Entity('sys_password_history')
@Index('idx_password_history_user', ['userId', 'id'])
export class PasswordHistoryEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'user_id', type: 'varchar', length: 36 })
  userId: string;

  /** BCrypt hash of a password the user had; never leaves the service. */
  @Column({ name: 'password_hash', type: 'varchar', length: 100 })
  passwordHash: string;

  /** When this password was replaced. */
  @Column({ ...DATETIME, name: 'replaced_time' })
  replacedTime: Date;
}
