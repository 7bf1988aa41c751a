import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Brackets, IsNull, Repository } from 'typeorm';

import { ApiKeyEntity } from './api-key.entity';

/** `sys_api_key`: the only place that queries it. */
@Injectable()
export class ApiKeyRepository {
  constructor(@InjectRepository(ApiKeyEntity) private readonly keys: Repository<ApiKeyEntity>) {}

  async insert(row: ApiKeyEntity): Promise<void> {
    await this.keys.insert(row);
  }

  async delete(id: string): Promise<void> {
    await this.keys.delete({ id });
  }

  /** Every key, newest first, without its hash. */
  all(): Promise<Omit<ApiKeyEntity, 'keyHash' | 'nameKey'>[]> {
    return this.keys.find({
      select: {
        id: true,
        name: true,
        prefix: true,
        permissions: true,
        ipRanges: true,
        createTime: true,
        expireTime: true,
        lastUsedTime: true,
        revokedTime: true,
      },
      order: { createTime: 'DESC', id: 'ASC' },
    });
  }

  byId(id: string): Promise<ApiKeyEntity | null> {
    return this.keys.findOne({ where: { id } });
  }

  byHash(keyHash: string): Promise<ApiKeyEntity | null> {
    return this.keys.findOne({ where: { keyHash } });
  }

  /** The hashes of every key not revoked (expired ones included: their rows still answer). */
  async liveHashes(): Promise<string[]> {
    const rows = await this.keys.find({ select: { keyHash: true }, where: { revokedTime: IsNull() } });
    return rows.map((r) => r.keyHash);
  }

  /** Marks the key revoked unless it already is; true when this call revoked it. */
  async revoke(id: string, at: Date): Promise<boolean> {
    const result = await this.keys.update({ id, revokedTime: IsNull() }, { revokedTime: at });
    return (result.affected ?? 0) === 1;
  }

  /** Moves last_used_time forward to `at`, never back (instances flush in any order). */
  async touch(id: string, at: Date): Promise<void> {
    await this.keys
      .createQueryBuilder()
      .update(ApiKeyEntity)
      .set({ lastUsedTime: at })
      .where('id = :id', { id })
      .andWhere(new Brackets((w) => w.where('last_used_time IS NULL').orWhere('last_used_time < :at', { at })))
      .execute();
  }
}
