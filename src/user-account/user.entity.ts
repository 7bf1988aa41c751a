import { Column, DeleteDateColumn, Entity, PrimaryColumn } from 'typeorm';

import { DATETIME } from '../common/datetime';

/** `sys_user`: the account, its password state, lock and disable flags. */
@Entity('sys_user')
export class UserEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ type: 'varchar', length: 64, unique: true })
  username: string;

  @Column({ type: 'varchar', length: 64 })
  name: string;

  /** Sealed by PiiCipher (`<version>:<ciphertext>`); PiiCipher.open gives the number, only where it is shown or sent. */
  @Column({ type: 'varchar', length: 255, nullable: true })
  mobile: string | null;

  /** Sealed as mobile is. */
  @Column({ type: 'varchar', length: 1024, nullable: true })
  email: string | null;

  /** The keyed hash of the normalised mobile (PiiCipher.hash): the keyword search and re-encryption find rows by it. */
  @Column({ name: 'mobile_hash', type: 'varchar', length: 64, nullable: true, select: false })
  mobileHash?: string | null;

  @Column({ name: 'email_hash', type: 'varchar', length: 64, nullable: true, select: false })
  emailHash?: string | null;

  /** The PiiCipher version the row's mobile, e-mail and hashes were made under; null = not encrypted yet. */
  @Column({ name: 'pii_version', type: 'varchar', length: 32, nullable: true })
  piiVersion?: string | null;

  /** BCrypt hash; never leaves the service. */
  @Column({ type: 'varchar', length: 100, select: false })
  password: string;

  /** null = initial password. */
  @Column({ ...DATETIME, name: 'password_update_time', nullable: true })
  passwordUpdateTime: Date | null;

  /** Set from the injected clock: it is the base of password age when password_update_time is null. */
  @Column({ ...DATETIME, name: 'create_time' })
  createTime: Date;

  @Column({ type: 'boolean', nullable: true, default: false })
  locked: boolean | null;

  @Column({ ...DATETIME, name: 'unlock_time', nullable: true })
  unlockTime: Date | null;

  @Column({ type: 'boolean', nullable: true, default: false })
  disabled: boolean | null;

  /** Failures before the last unlock, enable or reset are not counted. */
  @Column({ ...DATETIME, name: 'failure_reset_time', nullable: true })
  failureResetTime: Date | null;

  /** The last successful login, any way in (dormantDays); null = never. */
  @Column({ ...DATETIME, name: 'last_login_time', nullable: true })
  lastLoginTime: Date | null;

  /**
   * Soft delete: set when an administrator deleted the account. TypeORM's delete-date
   * column, so every find and query builder over sys_user leaves deleted users out unless it asks
   * for them (withDeleted): a deleted user is unknown to login, QR verify, reminders, lock/unlock/reset
   * and every other lookup, while the row, its identifiers and its log rows stay. Written from the
   * injected clock, never by TypeORM's softDelete (which takes the database's time).
   */
  @DeleteDateColumn({ ...DATETIME, name: 'delete_time', nullable: true })
  deleteTime?: Date | null;
}
