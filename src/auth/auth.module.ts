import { Module } from '@nestjs/common';

import { CryptoModule } from '../crypto/crypto.module';
import { LoginLogModule } from '../login-log/login-log.module';
import { SessionModule } from '../session/session.module';
import { StrategyModule } from '../strategy/strategy.module';
import { UserAccountModule } from '../user-account/user-account.module';
import { CaptchaService } from './captcha/captcha.service';
import { LoginAttackService } from './captcha/login-attack.service';
import { LoginController } from './login.controller';
import { LOGIN_STEPS, LoginService } from './login/login.service';

/** Logging in: captcha, the password login and the login tail other ways in share. */
@Module({
  imports: [UserAccountModule, StrategyModule, LoginLogModule, SessionModule, CryptoModule],
  controllers: [LoginController],
  // Steps other modules add to the login tail (the second factor is one); none of its own.
  providers: [LoginService, CaptchaService, LoginAttackService, LOGIN_STEPS.provide()],
  exports: [LoginService, CaptchaService, LoginAttackService],
})
export class AuthModule {}
