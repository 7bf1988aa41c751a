import { Module } from '@nestjs/common';

import { LOG_PII_CIPHER } from '../audit/log-pii';
import { CryptoModule } from '../crypto/crypto.module';
import { StrategyModule } from '../strategy/strategy.module';
import { PiiCipher } from './pii-cipher';

/**
 * Mobile numbers and e-mail addresses at rest (docs/security.md#personal-data). The generated key lives in the settings
 * store; the job that re-encrypts the rows is UserAccountModule's (it owns sys_user).
 */
@Module({
  imports: [CryptoModule, StrategyModule],
  // LOG_PII_CIPHER: the log tables seal the whole values they mask with it (src/audit/log-pii.ts).
  providers: [PiiCipher, LOG_PII_CIPHER.provide(PiiCipher)],
  exports: [PiiCipher],
})
export class PiiModule {}
