import { randomBytes } from 'node:crypto';

import { Inject, Injectable, Logger, OnModuleInit, Optional } from '@nestjs/common';

import { LogRowSeal, SealedTable } from '../audit/sealed-log-columns';
import { ONE_OFF_COMMAND } from '../common/one-off-command';
import { StartFailure } from '../common/start-failure';
import { AppConfig } from '../config/app-config';
import { CRYPTO_SUITE, CryptoSuite } from '../crypto/crypto-suite';
import { suitesFrom } from '../crypto/suites';
import { SettingsRepository } from '../strategy/settings.repository';

// The settings row that holds the generated key when AUDIT_HMAC_KEY is unset.
const KEY_ROW = { group: 'sys_security', key: 'audit_hmac_key' } as const;
// A MAC of a fixed text under the key the logs are sealed with (not the key itself): a start under
// another key is refused, rather than sealing new rows so that they can never verify. One row per
// suite the logs were ever sealed under (the standard suite's keeps its first name): after a switch of
// CRYPTO_SUITE the rows sealed before it verify under the suite that sealed them.
const CHECK_GROUP = 'sys_security';
const checkKey = (suite: CryptoSuite) =>
  suite.name === 'standard' ? 'audit_hmac_key_check' : `audit_hmac_key_check_${suite.name}`;

/** A place in a table's chain: the row at `seq` (0: before the first row) and its seal. */
export interface ChainLink {
  seq: number;
  id: string;
  seal: string;
}

/**
 * The key of the log seals and every MAC taken under it (docs/security.md#sealed-logs), with the MAC
 * of the suite in force (HMAC-SHA256, or HMAC-SM3 under CRYPTO_SUITE=gm); verification also accepts
 * the MACs of a suite the logs were sealed under before a switch.
 * AUDIT_HMAC_KEY or, unset, one generated on first start and kept in the settings store (as the
 * MFA key is), so that every instance seals under the same key. Each MAC is taken of a JSON array
 * that names what it is, so that no MAC of one kind can stand for one of another.
 */
@Injectable()
export class SealKey implements LogRowSeal, OnModuleInit {
  private readonly logger = new Logger('LogSeal');
  private key: Buffer;
  /** The suite in force, then any other the logs were sealed under (a check row names each). */
  private sealedUnder: CryptoSuite[];

  constructor(
    private readonly config: AppConfig,
    private readonly settings: SettingsRepository,
    @Inject(CRYPTO_SUITE) private readonly suite: CryptoSuite,
    @Optional() @Inject(ONE_OFF_COMMAND) private readonly command = false,
  ) {}

  /** Stops the start (StartFailure) under a key other than the one the logs were sealed with. */
  async onModuleInit() {
    const configured = this.config.AUDIT_HMAC_KEY;
    const checks = new Map<CryptoSuite, string | null>();
    for (const suite of suitesFrom(this.suite))
      checks.set(suite, await this.settings.get(CHECK_GROUP, checkKey(suite)));
    const check = [...checks.values()].find((c) => c !== null) ?? null;
    let base64 = configured;
    if (!base64) {
      const stored = await this.settings.get(KEY_ROW.group, KEY_ROW.key);
      if (!stored && check)
        throw new StartFailure(
          'AUDIT_HMAC_KEY',
          'not set, but the logs were sealed under a key that is not kept in the database: set the AUDIT_HMAC_KEY the service runs with',
        );
      base64 =
        stored ?? (await this.settings.insertIfAbsent(KEY_ROW.group, KEY_ROW.key, randomBytes(32).toString('base64')));
      // Advice for the service's start log; a command's output is read by scripts and people.
      if (!this.command)
        this.logger.warn(
          'AUDIT_HMAC_KEY is not set: the login and audit logs are sealed under a key kept in the database; ' +
            'set AUDIT_HMAC_KEY (openssl rand -base64 32) so that whoever can write the database cannot reseal a changed row',
        );
    }
    this.key = Buffer.from(base64, 'base64');
    this.sealedUnder = [];
    for (const [suite, stored] of checks) {
      const mine = this.mac(['key-check'], suite);
      // Two instances starting together: the first insert wins, and both compare with it.
      const kept =
        stored ??
        (suite === this.suite ? await this.settings.insertIfAbsent(CHECK_GROUP, checkKey(suite), mine) : null);
      if (kept === null) continue;
      if (kept !== mine)
        throw new StartFailure(
          'AUDIT_HMAC_KEY',
          'not the key the login and audit logs were sealed under (docs/operations.md#keys-and-secrets)',
        );
      this.sealedUnder.push(suite);
    }
  }

  /** Whether `stored` is the MAC `compute` takes under the suite in force or one the logs were sealed under before. */
  matches(stored: string | null, compute: (suite: CryptoSuite) => string): boolean {
    return stored !== null && this.sealedUnder.some((suite) => compute(suite) === stored);
  }

  rowMac(table: SealedTable, fields: readonly unknown[], suite = this.suite): string {
    return this.mac(['row', table, fields], suite);
  }

  /** The seal of the row `id` at `seq`, following `prev` in its table's chain (the genesis under `suite` when `prev` is place 0). */
  seal(
    table: SealedTable,
    seq: number,
    id: string,
    rowMac: string | null,
    prev: ChainLink,
    suite = this.suite,
  ): string {
    const before = prev.seq === 0 ? this.genesis(table, suite) : prev;
    return this.mac(['seal', table, seq, id, rowMac ?? '', before.id, before.seal], suite);
  }

  /** Where every chain starts: place 0, no row. */
  genesis(table: SealedTable, suite = this.suite): ChainLink {
    return { seq: 0, id: '0', seal: this.mac(['genesis', table], suite) };
  }

  /** The MAC of the stored head: the last place the sealer reached. */
  headMac(table: SealedTable, head: ChainLink, suite = this.suite): string {
    return this.mac(['head', table, head.seq, head.id, head.seal], suite);
  }

  /** The MAC of a run of places `fromSeq`..`last.seq` whose rows retention deleted. */
  releaseMac(table: SealedTable, fromSeq: number, last: ChainLink, suite = this.suite): string {
    return this.mac(['release', table, fromSeq, last.seq, last.id, last.seal], suite);
  }

  private mac(parts: readonly unknown[], suite: CryptoSuite): string {
    return suite.mac(this.key, JSON.stringify(parts));
  }
}
