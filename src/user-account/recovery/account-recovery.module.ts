import { Module } from '@nestjs/common';

import { AuditModule } from '../../audit/audit.module';
import { SessionModule } from '../../session/session.module';
import { StrategyModule } from '../../strategy/strategy.module';
import { UserAccountModule } from '../user-account.module';
import { AccountRecoveryService } from './account-recovery.service';

/** The server-side recovery command's service (src/cli/admin-recover.ts); no HTTP route reaches it. */
@Module({
  // The users' tables through UserAccountModule's UserRepository: it registers them.
  imports: [StrategyModule, UserAccountModule, AuditModule, SessionModule],
  providers: [AccountRecoveryService],
  exports: [AccountRecoveryService],
})
export class AccountRecoveryModule {}
