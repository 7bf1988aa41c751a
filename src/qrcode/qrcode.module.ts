import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { UserAccountModule } from '../user-account/user-account.module';
import { QrcodeController } from './qrcode.controller';
import { QrcodeService } from './qrcode.service';

@Module({
  imports: [UserAccountModule, AuthModule],
  controllers: [QrcodeController],
  providers: [QrcodeService],
})
export class QrcodeModule {}
