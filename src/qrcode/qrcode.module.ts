import { Module } from '@nestjs/common';

import { AuditModule } from '../audit/audit.module';
import { AuthModule } from '../auth/auth.module';
import { SessionModule } from '../session/session.module';
import { UserAccountModule } from '../user-account/user-account.module';
import { QrcodeController } from './qrcode.controller';
import { QrcodeService } from './qrcode.service';

@Module({
  imports: [UserAccountModule, AuthModule, AuditModule, SessionModule],
  controllers: [QrcodeController],
  providers: [QrcodeService],
})
export class QrcodeModule {}
