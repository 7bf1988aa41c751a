import { Module } from '@nestjs/common';

import { AuditModule } from '../audit/audit.module';
import { LoginLogModule } from '../login-log/login-log.module';
import { MfaModule } from '../mfa/mfa.module';
import { OtpModule } from '../otp/otp.module';
import { PiiModule } from '../pii/pii.module';
import { UserAccountModule } from '../user-account/user-account.module';
import { ProfileController } from './profile.controller';
import { ProfileService } from './profile.service';

/** The caller's own profile (name, mobile, e-mail confirmed by a code) and login history. */
@Module({
  imports: [UserAccountModule, OtpModule, MfaModule, LoginLogModule, AuditModule, PiiModule],
  controllers: [ProfileController],
  providers: [ProfileService],
})
export class ProfileModule {}
