import { Column, Entity, PrimaryColumn } from 'typeorm';

import { DATETIME } from '../common/datetime';
import type { RuleAction, TimeWindow } from './access-decision';

/** `sys_access_rule`: one login access rule (docs/security.md#login-access-rules). */
@Entity('sys_access_rule')
export class AccessRuleEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ type: 'varchar', length: 64 })
  name: string;

  @Column({ type: 'varchar', length: 8 })
  action: RuleAction;

  @Column({ name: 'ip_ranges', type: 'simple-json' })
  ipRanges: string[];

  @Column({ name: 'time_windows', type: 'simple-json' })
  timeWindows: TimeWindow[];

  /** Role codes. */
  @Column({ type: 'simple-json' })
  roles: string[];

  /** User ids. */
  @Column({ type: 'simple-json' })
  users: string[];

  @Column({ type: 'boolean', default: true })
  enabled: boolean;

  @Column({ ...DATETIME, name: 'create_time' })
  createTime: Date;

  @Column({ ...DATETIME, name: 'update_time' })
  updateTime: Date;
}
