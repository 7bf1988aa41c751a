import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * `sys_log_chain`: one row per sealed table (docs/security.md#sealed-logs). Where the chain's
 * head is (the last row sealed, with a MAC, so that removing the newest rows shows), below which
 * id rows predate sealing, and how far the rows were forwarded to syslog.
 */
@Entity('sys_log_chain')
export class LogChainEntity {
  @PrimaryColumn({ name: 'table_name', type: 'varchar', length: 32 })
  tableName: string;

  /** Rows with a lower id were written before sealing began: counted as unsealed, never bad. */
  @Column({ name: 'legacy_below', type: 'bigint' })
  legacyBelow: string;

  @Column({ name: 'head_seq', type: 'bigint' })
  headSeq: string;

  @Column({ name: 'head_id', type: 'bigint' })
  headId: string;

  @Column({ name: 'head_seal', type: 'varchar', length: 64, nullable: true })
  headSeal: string | null;

  @Column({ name: 'head_mac', type: 'varchar', length: 64, nullable: true })
  headMac: string | null;

  /** The last place of the chain sent to SYSLOG_URL (queued in the outbox for tcp and tls). */
  @Column({ name: 'forwarded_seq', type: 'bigint' })
  forwardedSeq: string;
}

/**
 * `sys_log_release`: places of a chain whose rows retention deleted, as runs of consecutive places,
 * each with the seal of its last row (where the chain goes on) and a MAC: a gap in the chain is
 * retention's work only when runs with valid MACs cover it.
 */
@Entity('sys_log_release')
export class LogReleaseEntity {
  @PrimaryColumn({ name: 'table_name', type: 'varchar', length: 32 })
  tableName: string;

  @PrimaryColumn({ name: 'from_seq', type: 'bigint' })
  fromSeq: string;

  @Column({ name: 'to_seq', type: 'bigint' })
  toSeq: string;

  @Column({ name: 'last_id', type: 'bigint' })
  lastId: string;

  @Column({ name: 'last_seal', type: 'varchar', length: 64 })
  lastSeal: string;

  @Column({ type: 'varchar', length: 64 })
  mac: string;
}
