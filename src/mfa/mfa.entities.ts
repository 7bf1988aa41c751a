import { Column, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

import { DATETIME } from '../common/datetime';

/** `sys_user_mfa`: one row per user with TOTP enabled (a pending setup lives in MFA_SETUP:{userId}). */
@Entity('sys_user_mfa')
export class UserMfaEntity {
  @PrimaryColumn({ name: 'user_id', type: 'varchar', length: 36 })
  userId: string;

  /** The base32 secret under AES-256-GCM (MfaCrypto), never the secret itself. */
  @Column({ type: 'varchar', length: 255 })
  secret: string;

  @Column({ ...DATETIME, name: 'enabled_time' })
  enabledTime: Date;

  /** The latest 30-second step a code was accepted for: a code of that step or an earlier one is a replay. */
  @Column({ name: 'last_used_step', type: 'bigint', nullable: true })
  lastUsedStep: string | number | null;
}

/** `sys_user_recovery_code`: single-use codes, kept as a keyed hash (MfaCrypto.hashRecoveryCode). */
@Entity('sys_user_recovery_code')
@Index('idx_recovery_code_user_hash', ['userId', 'codeHash'])
export class RecoveryCodeEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'user_id', type: 'varchar', length: 36 })
  userId: string;

  @Column({ name: 'code_hash', type: 'varchar', length: 64 })
  codeHash: string;

  @Column({ ...DATETIME, name: 'used_time', nullable: true })
  usedTime: Date | null;
}
