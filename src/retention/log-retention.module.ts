import { Module } from '@nestjs/common';

import { AuditModule } from '../audit/audit.module';
import { LogSealModule } from '../log-seal/log-seal.module';
import { StrategyModule } from '../strategy/strategy.module';
import { LogRetentionService } from './log-retention.service';

/** The daily deletion of old login-log and audit-log rows. */
@Module({
  imports: [LogSealModule, AuditModule, StrategyModule],
  providers: [LogRetentionService],
  exports: [LogRetentionService],
})
export class LogRetentionModule {}
