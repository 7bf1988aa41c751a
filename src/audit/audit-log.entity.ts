import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

import { DATETIME } from '../common/datetime';
import { SealedLogColumns } from './sealed-log-columns';

/** One administrative action: who, when, from where, what, on whom, and the values it changed. */
@Entity('sys_audit_log')
@Index('idx_audit_log_time', ['createTime'])
@Index('idx_audit_log_action_time', ['action', 'createTime'])
// The prefix filters (on SQLite the migration creates them with COLLATE NOCASE, see like-prefix.ts).
@Index('idx_audit_log_username', ['username'])
@Index('idx_audit_log_target', ['target'])
@Index('idx_audit_log_target_name', ['targetName'])
export class AuditLogEntity extends SealedLogColumns {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'user_id', type: 'varchar', length: 36 })
  userId: string;

  @Column({ type: 'varchar', length: 64, nullable: true })
  username: string | null;

  @Column({ type: 'varchar', length: 64 })
  action: string;

  @Column({ type: 'varchar', length: 128, nullable: true })
  target: string | null;

  /** The target's user name (or a role's name) at the time, so that a row reads without looking the id up. */
  @Column({ name: 'target_name', type: 'varchar', length: 64, nullable: true })
  targetName: string | null;

  /** JSON: e.g. { old, new } for a strategy save; never a password, token or hash. */
  @Column({ type: 'text', nullable: true })
  detail: string | null;

  /**
   * `detail` with the personal data it masks whole (JSON), sealed by the personal-data cipher: opened
   * only for a holder of sys:user:pii; null where `detail` masks nothing.
   */
  @Column({ name: 'pii_detail', type: 'text', nullable: true })
  piiDetail?: string | null;

  @Column({ type: 'varchar', length: 64 })
  ip: string;

  @Column({ ...DATETIME, name: 'create_time' })
  createTime: Date;
}

/** What a row's MAC covers, in this order: every field but the id and the seal columns. */
export function auditLogSealFields(row: Omit<AuditLogEntity, 'id'>): unknown[] {
  return [
    row.userId,
    row.username,
    row.action,
    row.target,
    row.targetName,
    row.detail,
    row.ip,
    row.createTime.toISOString(),
    // Only where there is one, so that the rows written before the column came verify as they were sealed.
    ...(row.piiDetail ? [row.piiDetail] : []),
  ].map((v) => v ?? null);
}
