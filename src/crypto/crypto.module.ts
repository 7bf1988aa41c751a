import { Module } from '@nestjs/common';

import { AppConfig } from '../config/app-config';
import { StrategyModule } from '../strategy/strategy.module';
import { CRYPTO_SUITE } from './crypto-suite';
import { PasswordTransport } from './password-transport';
import { SUITES } from './suites';

/** The shared transport key is kept in the settings store, which StrategyModule owns. */
@Module({
  imports: [StrategyModule],
  providers: [
    PasswordTransport,
    { provide: CRYPTO_SUITE, inject: [AppConfig], useFactory: (config: AppConfig) => SUITES[config.CRYPTO_SUITE] },
  ],
  exports: [PasswordTransport, CRYPTO_SUITE],
})
export class CryptoModule {}
