import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';

import { UserEntity } from './user.entity';

/** What another feature needs to know of a user it contacts on its own (not on a request of theirs). */
export type DirectoryUser = Pick<UserEntity, 'id' | 'username' | 'email' | 'passwordUpdateTime' | 'createTime'>;

/**
 * Read-only queries over the users for the other features, so that only user-account reads its
 * tables. Batches are keyed by id: a caller pages by passing the last id it got.
 */
@Injectable()
export class UserDirectory {
  constructor(@InjectRepository(UserEntity) private readonly users: Repository<UserEntity>) {}

  /**
   * expireNotifyDays: enabled users whose password was last set (or, never changed, whose
   * account was created) in (from, until], the first `limit` with an id greater than `afterId`, by id.
   */
  enabledWithPasswordSetIn(from: Date, until: Date, afterId: string, limit: number): Promise<DirectoryUser[]> {
    return this.users
      .createQueryBuilder('u')
      .where('u.id > :afterId', { afterId })
      .andWhere('COALESCE(u.password_update_time, u.create_time) > :from', { from })
      .andWhere('COALESCE(u.password_update_time, u.create_time) <= :until', { until })
      .andWhere('(u.disabled IS NULL OR u.disabled = :enabled)', { enabled: false })
      .orderBy('u.id', 'ASC')
      .take(limit)
      .getMany();
  }
}
