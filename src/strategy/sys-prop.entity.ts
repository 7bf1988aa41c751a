import { Column, Entity, PrimaryColumn } from 'typeorm';

/** `sys_props`: one row per setting. */
@Entity('sys_props')
export class SysPropEntity {
  @PrimaryColumn({ name: 'prop_group', type: 'varchar', length: 64 })
  group: string;

  @PrimaryColumn({ name: 'prop_key', type: 'varchar', length: 64 })
  key: string;

  @Column({ name: 'prop_value', type: 'text' })
  value: string;
}
