import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';

import { SysPropEntity } from './sys-prop.entity';

/**
 * The settings store (`sys_props`): string values by group and key, the only place that queries
 * the table. The strategy groups and other features' single settings (the shared RSA key) live here.
 */
@Injectable()
export class SettingsRepository {
  constructor(@InjectRepository(SysPropEntity) private readonly props: Repository<SysPropEntity>) {}

  /** Every stored key of the group with its value; keys never written are absent. */
  async readGroup(group: string): Promise<Map<string, string>> {
    const rows = await this.props.find({ where: { group } });
    return new Map(rows.map((row) => [row.key, row.value]));
  }

  /** Writes the given keys of the group (insert or overwrite, one statement); other keys stay. */
  async writeGroup(group: string, values: Record<string, string>): Promise<void> {
    const rows = Object.entries(values).map(([key, value]) => ({ group, key, value }));
    if (rows.length) await this.props.upsert(rows, ['group', 'key']);
  }

  /** The stored value, or null when the key was never written. */
  async get(group: string, key: string): Promise<string | null> {
    return (await this.props.findOne({ where: { group, key } }))?.value ?? null;
  }

  /**
   * Writes the value unless the key already has one; either way resolves to the stored value.
   * Of callers racing on the same key, the first insert wins and all of them get its value.
   */
  async insertIfAbsent(group: string, key: string, value: string): Promise<string> {
    await this.props.createQueryBuilder().insert().values({ group, key, value }).orIgnore().execute();
    return (await this.props.findOneOrFail({ where: { group, key } })).value;
  }
}
