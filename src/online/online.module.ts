import { Module } from '@nestjs/common';

import { AuditModule } from '../audit/audit.module';
import { SessionModule } from '../session/session.module';
import { UserAccountModule } from '../user-account/user-account.module';
import { OnlineController } from './online.controller';

/** Live sessions for administrators (all, kick-out) and for each user (their own). */
@Module({
  imports: [SessionModule, UserAccountModule, AuditModule],
  controllers: [OnlineController],
})
export class OnlineModule {}
