import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';

import { StrategyModule } from '../strategy/strategy.module';
import { CALLER_CREDENTIALS } from './caller-credential';
import { SessionGuard } from './guards/session.guard';
import { SessionService } from './session.service';
import { SessionAuthenticator } from './session-authenticator';
import { StreamTicketService } from './stream-ticket.service';

/**
 * The session kernel (5): tokens and sessions, the one authentication
 * of a request, the guard (with the renewal) that every route passes. Features import it to end,
 * list or refresh sessions, or to introspect a token; it imports no feature but the settings it reads (StrategyModule).
 */
@Module({
  imports: [StrategyModule],
  providers: [
    SessionService,
    SessionAuthenticator,
    StreamTicketService,
    // Other credentials than a session token: none here; src/api-key adds the API key.
    CALLER_CREDENTIALS.provide(),
    // A caller (an API key, or a token, kick-out, bindIp, temporary scope), its permission codes, the renewal.
    { provide: APP_GUARD, useClass: SessionGuard },
  ],
  exports: [SessionService, SessionAuthenticator, StreamTicketService],
})
export class SessionModule {}
