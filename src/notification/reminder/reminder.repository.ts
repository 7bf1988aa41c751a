import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';

import { isUniqueViolation } from '../../common/db-errors';
import { PasswordReminderEntity } from './password-reminder.entity';

/** `sys_password_reminder`, the record of expiry periods already reminded: the only place that queries it. */
@Injectable()
export class ReminderRepository {
  constructor(
    @InjectRepository(PasswordReminderEntity) private readonly reminders: Repository<PasswordReminderEntity>,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  /** True when the user's period ending at `expireTime` has been reminded (here or on another instance). */
  wasReminded(userId: string, expireTime: Date): Promise<boolean> {
    return this.reminders.existsBy({ userId, expireTime });
  }

  /**
   * Records the period as reminded and runs `alongside` (the notification rows) in the same
   * transaction. The primary key (user, expiry time) makes it once per period: when another
   * instance recorded the same period first, nothing is written and this resolves to false.
   */
  async recordOnce(
    reminder: PasswordReminderEntity,
    alongside: (tx: EntityManager) => Promise<unknown>,
  ): Promise<boolean> {
    try {
      await this.dataSource.transaction(async (tx) => {
        await tx.insert(PasswordReminderEntity, reminder);
        await alongside(tx);
      });
      return true;
    } catch (err) {
      if (isUniqueViolation(err)) return false;
      throw err;
    }
  }
}
