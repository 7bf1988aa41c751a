import { Global, Module } from '@nestjs/common';
import { StrategyModule } from '../../strategy/strategy.module';
import { SessionService } from './session.service';

/** Global so that account operations (lock, reset) can end sessions without importing the login module. */
@Global()
@Module({
  imports: [StrategyModule],
  providers: [SessionService],
  exports: [SessionService],
})
export class SessionModule {}
