import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity('sys_role')
export class RoleEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  code: string;

  @Column({ type: 'varchar', length: 64 })
  name: string;

  /** Permission codes; `*` grants every permission. */
  @Column({ type: 'simple-json' })
  permissions: string[];
}

@Entity('sys_user_role')
export class UserRoleEntity {
  @PrimaryColumn({ name: 'user_id', type: 'varchar', length: 36 })
  userId: string;

  @PrimaryColumn({ name: 'role_code', type: 'varchar', length: 64 })
  roleCode: string;
}
