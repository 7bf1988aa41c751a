import { Module } from '@nestjs/common';

import { CryptoModule } from '../crypto/crypto.module';
import { StrategyModule } from '../strategy/strategy.module';
import { PiiCipher } from './pii-cipher';
import { PiiReencryptJob } from './pii-reencrypt.job';

/** Mobile numbers and e-mail addresses at rest (docs/security.md#personal-data). The generated key lives in the settings store. */
@Module({
  imports: [CryptoModule, StrategyModule],
  providers: [PiiCipher, PiiReencryptJob],
  exports: [PiiCipher],
})
export class PiiModule {}
