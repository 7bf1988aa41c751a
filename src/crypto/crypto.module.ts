import { Module } from '@nestjs/common';

import { StrategyModule } from '../strategy/strategy.module';
import { RsaKeyService } from './rsa-key.service';

/** The shared RSA key is kept in the settings store, which StrategyModule owns. */
@Module({
  imports: [StrategyModule],
  providers: [RsaKeyService],
  exports: [RsaKeyService],
})
export class CryptoModule {}
