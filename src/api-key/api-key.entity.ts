import { Column, Entity, PrimaryColumn } from 'typeorm';

import { DATETIME } from '../common/datetime';

/**
 * `sys_api_key`: a key of an internal service. The key itself is never stored, only its SHA-256
 * (`key_hash`) and the first characters the list shows (`prefix`).
 */
@Entity('sys_api_key')
export class ApiKeyEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ type: 'varchar', length: 48 })
  name: string;

  /** The name in lower case, unique: no two keys' names differ only in case (they name audit actors). */
  @Column({ name: 'name_key', type: 'varchar', length: 48, unique: true })
  nameKey: string;

  @Column({ name: 'key_hash', type: 'varchar', length: 64, unique: true })
  keyHash: string;

  @Column({ type: 'varchar', length: 8 })
  prefix: string;

  /** Permission codes of the registry; never `*` nor a code of the keys themselves. */
  @Column({ type: 'simple-json' })
  permissions: string[];

  /** CIDR ranges or addresses the key is good from; empty: any address. */
  @Column({ name: 'ip_ranges', type: 'simple-json' })
  ipRanges: string[];

  @Column({ ...DATETIME, name: 'create_time' })
  createTime: Date;

  /** null: the key does not expire. */
  @Column({ ...DATETIME, name: 'expire_time', nullable: true })
  expireTime: Date | null;

  /** Written in batches from each instance's memory (ApiKeyUsage), never on each request. */
  @Column({ ...DATETIME, name: 'last_used_time', nullable: true })
  lastUsedTime: Date | null;

  @Column({ ...DATETIME, name: 'revoked_time', nullable: true })
  revokedTime: Date | null;
}
