import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

import type { IdentifierKind } from './user-identifier';

/**
 * "login identifiers are unique across fields": one row per user name, mobile
 * and e-mail, keyed by its normalised value (see user-identifier.ts). The primary key makes
 * the rule atomic on both databases; the column compares bytes (utf8mb4_bin on MariaDB, as
 * SQLite does), so the only folding is the one the service applies before writing.
 */
@Entity('sys_user_identifier')
@Index('idx_user_identifier_user', ['userId'])
export class UserIdentifierEntity {
  @PrimaryColumn({ type: 'varchar', length: 255 })
  value: string;

  @Column({ name: 'user_id', type: 'varchar', length: 36 })
  userId: string;

  @Column({ type: 'varchar', length: 16 })
  kind: IdentifierKind;
}
