import { Module } from '@nestjs/common';
import { APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';
import { StrategyModule } from '../strategy/strategy.module';
import { PermissionGuard } from './guards/permission.guard';
import { TokenGuard } from './guards/token.guard';
import { RenewalInterceptor } from './renewal.interceptor';
import { SessionAuthenticator } from './session-authenticator';
import { SessionService } from './session.service';
import { StreamTicketService } from './stream-ticket.service';

/**
 * The session kernel (spec 3.4, 5; contract §6, §11): tokens and sessions, the one authentication
 * of a request, the guards and the renewal that every route passes. Features import it to end,
 * list or refresh sessions; it imports no feature but the settings it reads (StrategyModule).
 */
@Module({
  imports: [StrategyModule],
  providers: [
    SessionService,
    SessionAuthenticator,
    StreamTicketService,
    // Global guards run in this order: a caller (token, kick-out, bindIp, temporary scope), then permission codes.
    { provide: APP_GUARD, useClass: TokenGuard },
    { provide: APP_GUARD, useClass: PermissionGuard },
    { provide: APP_INTERCEPTOR, useClass: RenewalInterceptor },
  ],
  exports: [SessionService, StreamTicketService],
})
export class SessionModule {}
