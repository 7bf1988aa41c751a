import { Module } from '@nestjs/common';

import { AuditModule } from '../audit/audit.module';
import { AuthModule } from '../auth/auth.module';
import { CryptoModule } from '../crypto/crypto.module';
import { LoginLogModule } from '../login-log/login-log.module';
import { MfaModule } from '../mfa/mfa.module';
import { SECOND_FACTORS } from '../mfa/second-factors';
import { NotificationModule } from '../notification/notification.module';
import { NOTIFICATION_CHANNELS } from '../notification/notification.types';
import { SessionModule } from '../session/session.module';
import { StrategyModule } from '../strategy/strategy.module';
import { UserAccountModule } from '../user-account/user-account.module';
import { OtpEmailChannel, OtpSmsChannel } from './otp.channel';
import { OtpController } from './otp.controller';
import { OtpCodes } from './otp-codes';
import { OtpLimits } from './otp-limits';
import { OtpLoginService } from './otp-login.service';
import { OtpSecondFactor } from './otp-second-factor';
import { OtpSendService } from './otp-send.service';
import { PasswordResetService } from './password-reset.service';

/** One-time codes by SMS and e-mail (login by code, second factor, the forgotten password); their own outbox channels. */
@Module({
  imports: [
    AuthModule,
    MfaModule,
    NotificationModule,
    UserAccountModule,
    StrategyModule,
    LoginLogModule,
    SessionModule,
    AuditModule,
    CryptoModule,
  ],
  controllers: [OtpController],
  providers: [
    OtpCodes,
    OtpLimits,
    OtpSendService,
    OtpLoginService,
    PasswordResetService,
    OtpSmsChannel,
    OtpEmailChannel,
    NOTIFICATION_CHANNELS.provide(OtpSmsChannel, OtpEmailChannel),
    OtpSecondFactor,
    SECOND_FACTORS.provide(OtpSecondFactor),
  ],
  // The own profile (src/profile) confirms a new mobile or e-mail with a code.
  exports: [OtpCodes, OtpSendService],
})
export class OtpModule {}
