import { createHash } from 'node:crypto';

import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Brackets, In, Repository } from 'typeorm';

import { PasskeyEntity } from './passkey.entity';

export const credentialHashOf = (credentialId: string): string =>
  createHash('sha256').update(credentialId).digest('hex');

/** `sys_user_passkey`: the only place that queries it. */
@Injectable()
export class PasskeyRepository {
  constructor(@InjectRepository(PasskeyEntity) private readonly rows: Repository<PasskeyEntity>) {}

  ofUser(userId: string): Promise<PasskeyEntity[]> {
    return this.rows.find({ where: { userId }, order: { createTime: 'ASC' } });
  }

  async countOf(userId: string): Promise<number> {
    return this.rows.count({ where: { userId } });
  }

  /** How many passkeys each of the given users has (absent: none). */
  async countsAmong(userIds: string[]): Promise<Map<string, number>> {
    if (!userIds.length) return new Map();
    const rows: { userId: string; n: string | number }[] = await this.rows
      .createQueryBuilder('p')
      .select('p.user_id', 'userId')
      .addSelect('COUNT(*)', 'n')
      .where({ userId: In(userIds) })
      .groupBy('p.user_id')
      .getRawMany();
    return new Map(rows.map((r) => [r.userId, Number(r.n)]));
  }

  byCredentialId(credentialId: string): Promise<PasskeyEntity | null> {
    return this.rows.findOne({ where: { credentialHash: credentialHashOf(credentialId) } });
  }

  byId(userId: string, id: string): Promise<PasskeyEntity | null> {
    return this.rows.findOne({ where: { userId, id } });
  }

  async insert(row: PasskeyEntity): Promise<void> {
    await this.rows.insert(row);
  }

  async rename(userId: string, id: string, name: string): Promise<boolean> {
    return ((await this.rows.update({ userId, id }, { name })).affected ?? 0) > 0;
  }

  async delete(userId: string, id: string): Promise<boolean> {
    return ((await this.rows.delete({ userId, id })).affected ?? 0) > 0;
  }

  async deleteAll(userId: string): Promise<void> {
    await this.rows.delete({ userId });
  }

  /**
   * Records a use: the counter only moves forward (of two uses with the same counter, one wins), so
   * a cloned authenticator replaying an old counter cannot also reset it.
   */
  async recordUse(
    id: string,
    use: { counter: number; deviceType: string; backedUp: boolean; at: Date },
  ): Promise<boolean> {
    const result = await this.rows
      .createQueryBuilder()
      .update(PasskeyEntity)
      .set({ counter: use.counter, deviceType: use.deviceType, backedUp: use.backedUp, lastUsedTime: use.at })
      .where('id = :id', { id })
      .andWhere(
        new Brackets((w) =>
          w.where('counter < :counter', { counter: use.counter }).orWhere('counter = 0 AND :counter = 0'),
        ),
      )
      .execute();
    return result.affected === 1;
  }
}
