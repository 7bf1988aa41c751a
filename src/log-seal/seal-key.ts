import { createHmac, randomBytes } from 'node:crypto';

import { Inject, Injectable, Logger, OnModuleInit, Optional } from '@nestjs/common';

import { LogRowSeal, SealedTable } from '../audit/sealed-log-columns';
import { ONE_OFF_COMMAND } from '../common/one-off-command';
import { StartFailure } from '../common/start-failure';
import { AppConfig } from '../config/app-config';
import { SettingsRepository } from '../strategy/settings.repository';

// The settings row that holds the generated key when AUDIT_HMAC_KEY is unset.
const KEY_ROW = { group: 'sys_security', key: 'audit_hmac_key' } as const;
// A MAC of a fixed text under the key the logs are sealed with (not the key itself): a start under
// another key is refused, rather than sealing new rows so that they can never verify.
const CHECK_ROW = { group: 'sys_security', key: 'audit_hmac_key_check' } as const;

/** A place in a table's chain: the row at `seq` (0: before the first row) and its seal. */
export interface ChainLink {
  seq: number;
  id: string;
  seal: string;
}

/**
 * The HMAC-SHA256 key of the log seals and every MAC taken under it (docs/security.md#sealed-logs).
 * AUDIT_HMAC_KEY or, unset, one generated on first start and kept in the settings store (as the
 * MFA key is), so that every instance seals under the same key. Each MAC is taken of a JSON array
 * that names what it is, so that no MAC of one kind can stand for one of another.
 */
@Injectable()
export class SealKey implements LogRowSeal, OnModuleInit {
  private readonly logger = new Logger('LogSeal');
  private key: Buffer;

  constructor(
    private readonly config: AppConfig,
    private readonly settings: SettingsRepository,
    @Optional() @Inject(ONE_OFF_COMMAND) private readonly command = false,
  ) {}

  /** Stops the start (StartFailure) under a key other than the one the logs were sealed with. */
  async onModuleInit() {
    const configured = this.config.AUDIT_HMAC_KEY;
    const check = await this.settings.get(CHECK_ROW.group, CHECK_ROW.key);
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
    const mine = this.mac(['key-check']);
    // Two instances starting together: the first insert wins, and both compare with it.
    if ((check ?? (await this.settings.insertIfAbsent(CHECK_ROW.group, CHECK_ROW.key, mine))) !== mine)
      throw new StartFailure(
        'AUDIT_HMAC_KEY',
        'not the key the login and audit logs were sealed under (docs/operations.md#keys-and-secrets)',
      );
  }

  rowMac(table: SealedTable, fields: readonly unknown[]): string {
    return this.mac(['row', table, fields]);
  }

  /** The seal of the row `id` at `seq`, following `prev` in its table's chain. */
  seal(table: SealedTable, seq: number, id: string, rowMac: string | null, prev: ChainLink): string {
    return this.mac(['seal', table, seq, id, rowMac ?? '', prev.id, prev.seal]);
  }

  /** Where every chain starts: place 0, no row. */
  genesis(table: SealedTable): ChainLink {
    return { seq: 0, id: '0', seal: this.mac(['genesis', table]) };
  }

  /** The MAC of the stored head: the last place the sealer reached. */
  headMac(table: SealedTable, head: ChainLink): string {
    return this.mac(['head', table, head.seq, head.id, head.seal]);
  }

  /** The MAC of a run of places `fromSeq`..`last.seq` whose rows retention deleted. */
  releaseMac(table: SealedTable, fromSeq: number, last: ChainLink): string {
    return this.mac(['release', table, fromSeq, last.seq, last.id, last.seal]);
  }

  private mac(parts: readonly unknown[]): string {
    return createHmac('sha256', this.key).update(JSON.stringify(parts)).digest('hex');
  }
}
