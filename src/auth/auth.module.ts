import { Module } from '@nestjs/common';
import { APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';
import { LoginLogModule } from '../login-log/login-log.module';
import { StrategyModule } from '../strategy/strategy.module';
import { UserAccountModule } from '../user-account/user-account.module';
import { CaptchaService } from './captcha/captcha.service';
import { PermissionGuard } from './guards/permission.guard';
import { TempTokenGuard } from './guards/temp-token.guard';
import { TokenGuard } from './guards/token.guard';
import { LoginController } from './login.controller';
import { LoginService } from './login/login.service';
import { OnlineController } from './session/online.controller';
import { RenewalInterceptor } from './session/renewal.interceptor';

@Module({
  imports: [UserAccountModule, StrategyModule, LoginLogModule],
  controllers: [LoginController, OnlineController],
  providers: [
    LoginService,
    CaptchaService,
    // Global guards run in this order: token, temporary token, permission codes (spec 5).
    { provide: APP_GUARD, useClass: TokenGuard },
    { provide: APP_GUARD, useClass: TempTokenGuard },
    { provide: APP_GUARD, useClass: PermissionGuard },
    { provide: APP_INTERCEPTOR, useClass: RenewalInterceptor },
  ],
  exports: [LoginService],
})
export class AuthModule {}
