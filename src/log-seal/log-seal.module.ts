import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { AuditModule } from '../audit/audit.module';
import { AuditLogEntity } from '../audit/audit-log.entity';
import { LOG_ROW_SEAL } from '../audit/sealed-log-columns';
import { CryptoModule } from '../crypto/crypto.module';
import { LoginLogEntity } from '../login-log/login-log.entity';
import { LoginLogModule } from '../login-log/login-log.module';
import { StrategyModule } from '../strategy/strategy.module';
import { LogChainEntity, LogReleaseEntity } from './log-chain.entity';
import { LogChainRepository } from './log-chain.repository';
import { LogReleaseService } from './log-release.service';
import { LogSealController } from './log-seal.controller';
import { LogSealer } from './log-sealer';
import { LogVerifier } from './log-verifier';
import { SealKey } from './seal-key';
import { SealedLogs } from './sealed-logs';

/**
 * The seals of the login log and the audit log (docs/security.md#sealed-logs): the MAC each row is
 * written with (SealKey, through LOG_ROW_SEAL), the background sealer that chains the rows, the
 * verification, and the deletions retention makes from both logs.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([LoginLogEntity, AuditLogEntity, LogChainEntity, LogReleaseEntity]),
    AuditModule,
    LoginLogModule,
    StrategyModule,
    CryptoModule,
  ],
  controllers: [LogSealController],
  providers: [
    SealKey,
    LOG_ROW_SEAL.provide(SealKey),
    SealedLogs,
    LogChainRepository,
    LogSealer,
    LogVerifier,
    LogReleaseService,
  ],
  exports: [LogSealer, LogVerifier, LogReleaseService, SealedLogs, LogChainRepository],
})
export class LogSealModule {}
