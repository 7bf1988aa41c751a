import { Module } from '@nestjs/common';

import { AppConfig } from '../config/app-config';
import { StrategyModule } from '../strategy/strategy.module';
import { CRYPTO_SUITE, STANDARD_SUITE } from './crypto-suite';
import { RsaKeyService } from './rsa-key.service';

/** The shared RSA key is kept in the settings store, which StrategyModule owns. */
@Module({
  imports: [StrategyModule],
  providers: [
    RsaKeyService,
    // Only the standard suite exists so far; `gm` is refused at start until its suite is built.
    { provide: CRYPTO_SUITE, inject: [AppConfig], useFactory: (config: AppConfig) => suiteOf(config) },
  ],
  exports: [RsaKeyService, CRYPTO_SUITE],
})
export class CryptoModule {}

function suiteOf(config: AppConfig) {
  if (config.CRYPTO_SUITE !== 'standard') throw new Error(`CRYPTO_SUITE ${config.CRYPTO_SUITE} is not built yet`);
  return STANDARD_SUITE;
}
