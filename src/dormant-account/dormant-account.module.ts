import { Module } from '@nestjs/common';

import { AuditModule } from '../audit/audit.module';
import { NotificationModule } from '../notification/notification.module';
import { StrategyModule } from '../strategy/strategy.module';
import { UserAccountModule } from '../user-account/user-account.module';
import { DormantAccountJob } from './dormant-account.job';

/**
 * dormantDays: the daily job that disables accounts nobody logged in to. Its own
 * module, not part of user-account: it tells the users through the notification outbox, and the
 * notification module already stands on user-account.
 */
@Module({
  imports: [StrategyModule, UserAccountModule, NotificationModule, AuditModule],
  providers: [DormantAccountJob],
  exports: [DormantAccountJob],
})
export class DormantAccountModule {}
