import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository } from 'typeorm';

import { AccessRuleEntity } from './access-rule.entity';

/** `sys_access_rule`: the only place that queries it. */
@Injectable()
export class AccessRuleRepository {
  constructor(@InjectRepository(AccessRuleEntity) private readonly rules: Repository<AccessRuleEntity>) {}

  /** Every rule, oldest first (the console's order). */
  all(): Promise<AccessRuleEntity[]> {
    return this.rules.find({ order: { createTime: 'ASC', name: 'ASC', id: 'ASC' } });
  }

  /** Inserts a new rule or overwrites the one of its id. */
  async save(rule: AccessRuleEntity): Promise<void> {
    await this.rules.save(rule);
  }

  async delete(id: string): Promise<void> {
    await this.rules.delete({ id });
  }

  async disable(ids: string[], at: Date): Promise<void> {
    if (ids.length) await this.rules.update({ id: In(ids) }, { enabled: false, updateTime: at });
  }
}
