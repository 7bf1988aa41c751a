import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { AuditModule } from '../audit/audit.module';
import { AuthModule } from '../auth/auth.module';
import { LoginLogModule } from '../login-log/login-log.module';
import { MfaModule } from '../mfa/mfa.module';
import { SECOND_FACTOR_METHODS } from '../mfa/second-factor-methods';
import { StrategyModule } from '../strategy/strategy.module';
import { USER_PASSKEYS } from '../user-account/passkey-status';
import { UserAccountModule } from '../user-account/user-account.module';
import { PasskeyController } from './passkey.controller';
import { PasskeyEntity } from './passkey.entity';
import { PasskeyRepository } from './passkey.repository';
import { PasskeyService } from './passkey.service';
import { PasskeyAssertions } from './passkey-assertions';
import { PasskeyChallenges } from './passkey-challenges';
import { PasskeyLoginService } from './passkey-login.service';
import { PasskeySecondFactor } from './passkey-second-factor';
import { RelyingParty } from './relying-party';

/** Passkeys (WebAuthn): a way in of its own and a second-factor method (SECOND_FACTOR_METHODS). */
@Module({
  imports: [
    TypeOrmModule.forFeature([PasskeyEntity]),
    AuthModule,
    MfaModule,
    UserAccountModule,
    StrategyModule,
    LoginLogModule,
    AuditModule,
  ],
  controllers: [PasskeyController],
  providers: [
    PasskeyRepository,
    PasskeyChallenges,
    PasskeyAssertions,
    PasskeyService,
    PasskeyLoginService,
    PasskeySecondFactor,
    RelyingParty,
    SECOND_FACTOR_METHODS.provide(PasskeySecondFactor),
    USER_PASSKEYS.provide(PasskeyRepository),
  ],
})
export class PasskeyModule {}
