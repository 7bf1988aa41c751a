import { Module } from '@nestjs/common';

import { LoginLogModule } from '../login-log/login-log.module';
import { SessionModule } from '../session/session.module';
import { StrategyModule } from '../strategy/strategy.module';
import { UserAccountModule } from '../user-account/user-account.module';
import { DashboardController } from './dashboard.controller';
import { DashboardService } from './dashboard.service';

/** The console's home page: figures read from the users, the login log, the sessions and the strategy. */
@Module({
  imports: [UserAccountModule, LoginLogModule, SessionModule, StrategyModule],
  controllers: [DashboardController],
  providers: [DashboardService],
})
export class DashboardModule {}
