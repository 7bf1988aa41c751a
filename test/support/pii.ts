import { randomBytes } from 'node:crypto';

import type { AppConfig } from '../../src/config/app-config';
import { STANDARD_SUITE } from '../../src/crypto/crypto-suite';
import { PiiCipher } from '../../src/pii/pii-cipher';
import type { SettingsRepository } from '../../src/strategy/settings.repository';

/** A PiiCipher of the standard suite under a fresh key, for code built without Nest. */
export async function testPiiCipher(key = randomBytes(32).toString('base64')): Promise<PiiCipher> {
  const config = { PII_ENCRYPTION_KEY: key } as AppConfig;
  const settings = { get: async () => null } as unknown as SettingsRepository;
  const cipher = new PiiCipher(STANDARD_SUITE, config, settings);
  await cipher.onModuleInit();
  return cipher;
}
