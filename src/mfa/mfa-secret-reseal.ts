import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';

import { MfaRepository } from './mfa.repository';
import { MfaCrypto } from './mfa-crypto';

const PAGE = 500;

/**
 * After a switch of CRYPTO_SUITE, re-encrypts at start every TOTP secret the other suite sealed
 * (docs/security.md#crypto-suites). Each row is replaced only if unchanged since it was read, so
 * instances starting together do the work once; until then such a secret still opens (MfaCrypto
 * reads either suite).
 */
@Injectable()
export class MfaSecretReseal implements OnApplicationBootstrap {
  private readonly logger = new Logger('Mfa');

  constructor(
    private readonly crypto: MfaCrypto,
    private readonly repo: MfaRepository,
  ) {}

  async onApplicationBootstrap() {
    const resealed = await this.run();
    if (resealed) this.logger.log(`re-encrypted ${resealed} TOTP secrets under the ${this.crypto.suite.name} suite`);
  }

  /** Re-encrypts the secrets of the other suite; answers how many. */
  async run(): Promise<number> {
    let resealed = 0;
    let after = '';
    for (;;) {
      const rows = await this.repo.secretsAfter(after, PAGE);
      for (const row of rows) {
        if (this.crypto.isCurrent(row.secret)) continue;
        let plain: string;
        try {
          plain = this.crypto.decrypt(row.secret);
        } catch {
          // Altered or under another key: left as it is; the login refuses it and says so (MfaService).
          this.logger.error(`the TOTP secret of user ${row.userId} does not decrypt: not re-encrypted`);
          continue;
        }
        if (await this.repo.replaceSecret(row.userId, row.secret, this.crypto.encrypt(plain))) resealed += 1;
      }
      if (rows.length < PAGE) return resealed;
      after = rows[rows.length - 1].userId;
    }
  }
}
