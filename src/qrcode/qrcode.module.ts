import { Module } from '@nestjs/common';
import { LoginLogModule } from '../login-log/login-log.module';
import { StrategyModule } from '../strategy/strategy.module';
import { UserAccountModule } from '../user-account/user-account.module';
import { QrcodeController } from './qrcode.controller';
import { QrcodeService } from './qrcode.service';

@Module({
  imports: [UserAccountModule, StrategyModule, LoginLogModule],
  controllers: [QrcodeController],
  providers: [QrcodeService],
})
export class QrcodeModule {}
