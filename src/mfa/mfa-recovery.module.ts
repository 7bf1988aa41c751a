import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { AuditModule } from '../audit/audit.module';
import { RecoveryCodeEntity, UserMfaEntity } from './mfa.entities';
import { MfaRepository } from './mfa.repository';
import { MfaRecoveryService } from './mfa-recovery.service';

/** The recovery command's share of the second factor: its rows only, none of the login step or the outbox. */
@Module({
  imports: [TypeOrmModule.forFeature([UserMfaEntity, RecoveryCodeEntity]), AuditModule],
  providers: [MfaRepository, MfaRecoveryService],
  exports: [MfaRecoveryService],
})
export class MfaRecoveryModule {}
