import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { AuditModule } from '../audit/audit.module';
import { AuthModule } from '../auth/auth.module';
import { LOGIN_STEPS } from '../auth/login/login.service';
import { CryptoModule } from '../crypto/crypto.module';
import { LoginLogModule } from '../login-log/login-log.module';
import { NotificationModule } from '../notification/notification.module';
import { SessionModule } from '../session/session.module';
import { StrategyModule } from '../strategy/strategy.module';
import { MFA_STATUS } from '../user-account/mfa-status';
import { REAUTH_CODE_PROOF } from '../user-account/reauth.service';
import { UserAccountModule } from '../user-account/user-account.module';
import { MfaController } from './mfa.controller';
import { RecoveryCodeEntity, UserMfaEntity } from './mfa.entities';
import { MfaRepository } from './mfa.repository';
import { MfaService } from './mfa.service';
import { MfaCrypto } from './mfa-crypto';
import { MfaLoginService } from './mfa-login.service';
import { MfaSecretReseal } from './mfa-secret-reseal';
import { SECOND_FACTOR_METHODS } from './second-factor-methods';
import { SECOND_FACTORS } from './second-factors';

/** The TOTP second factor, added to the login tail as a step (MfaLoginService). */
@Module({
  imports: [
    TypeOrmModule.forFeature([UserMfaEntity, RecoveryCodeEntity]),
    AuthModule,
    UserAccountModule,
    SessionModule,
    StrategyModule,
    LoginLogModule,
    NotificationModule,
    AuditModule,
    CryptoModule,
  ],
  controllers: [MfaController],
  providers: [
    MfaCrypto,
    MfaSecretReseal,
    MfaRepository,
    MfaService,
    MfaLoginService,
    LOGIN_STEPS.provide(MfaLoginService),
    MFA_STATUS.provide(MfaService),
    REAUTH_CODE_PROOF.provide(MfaService),
    // Other methods (passkeys) add theirs; declared here so the point exists without them.
    SECOND_FACTOR_METHODS.provide(),
    // Codes other modules send beside TOTP (src/otp), checked against the code field; none of its own.
    SECOND_FACTORS.provide(),
  ],
  // The key of the TOTP secrets also keeps other secrets that must be read back (src/webhook).
  exports: [MfaCrypto, MfaLoginService, MfaService],
})
export class MfaModule {}
