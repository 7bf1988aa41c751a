import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../../audit/audit.module';
import { SessionModule } from '../../session/session.module';
import { StrategyModule } from '../../strategy/strategy.module';
import { UserAccountModule } from '../user-account.module';
import { UserIdentifierEntity } from '../user-identifier.entity';
import { UserEntity } from '../user.entity';
import { AccountRecoveryService } from './account-recovery.service';

/** The server-side recovery command's service (src/cli/admin-recover.ts); no HTTP route reaches it. */
@Module({
  imports: [TypeOrmModule.forFeature([UserEntity, UserIdentifierEntity]), StrategyModule, UserAccountModule, AuditModule, SessionModule],
  providers: [AccountRecoveryService],
  exports: [AccountRecoveryService],
})
export class AccountRecoveryModule {}
