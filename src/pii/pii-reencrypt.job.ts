import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';

import { UserEntity } from '../user-account/user.entity';
import { normaliseIdentifier } from '../user-account/user-identifier';
import { PiiCipher } from './pii-cipher';

/** Users a batch reads and writes in one transaction: bounded memory whatever the table's size. */
export const PII_BATCH_SIZE = 500;

interface Row {
  id: string;
  mobile: string | null;
  email: string | null;
  pii_version: string | null;
}

/**
 * Brings every sys_user row to the current PiiCipher version, in batches by id, from the start: rows written
 * before encryption (pii_version null), under a previous key or by another suite are sealed again and their
 * hashes (the columns beside them and the sys_user_identifier rows) made anew. Resumable: what is done carries
 * the current version and is not read again, so a restart goes on where the last run stopped.
 */
@Injectable()
export class PiiReencryptJob implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Pii');
  private stopping = false;
  private running?: Promise<number>;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly pii: PiiCipher,
  ) {}

  onApplicationBootstrap() {
    // In the background: the service answers meanwhile (look-ups match old and new hashes alike, see PiiCipher).
    this.running = this.run().catch((err: Error) => {
      this.logger.error(`re-encryption of personal data stopped: ${err.name}; it resumes at the next start`);
      return 0;
    });
  }

  async onApplicationShutdown() {
    this.stopping = true;
    await this.running;
  }

  /** Until done (or the service stops); the number of rows it changed. */
  async run(batchSize = PII_BATCH_SIZE): Promise<number> {
    const version = this.pii.version;
    let after = '';
    let changed = 0;
    while (!this.stopping) {
      const rows: Row[] = await this.dataSource
        .createQueryBuilder()
        .select(['u.id AS id', 'u.mobile AS mobile', 'u.email AS email', 'u.pii_version AS pii_version'])
        .from(UserEntity, 'u')
        .withDeleted()
        .where('u.id > :after', { after })
        .andWhere('(u.pii_version IS NULL OR u.pii_version <> :version)', { version })
        .orderBy('u.id', 'ASC')
        .limit(batchSize)
        .getRawMany();
      if (!rows.length) break;
      await this.dataSource.transaction(async (tx) => {
        for (const row of rows) if (await this.moveRow(tx, row)) changed++;
      });
      after = rows[rows.length - 1].id;
    }
    if (changed) this.logger.log(`personal data of ${changed} users encrypted under ${version}`);
    return changed;
  }

  /** One row under the current version; false when an administrator changed it meanwhile (it then is current already). */
  private async moveRow(tx: EntityManager, row: Row): Promise<boolean> {
    const mobile = this.pii.reveal(row.mobile);
    const email = this.pii.reveal(row.email);
    const result = await tx
      .createQueryBuilder()
      .update(UserEntity)
      .set({
        mobile: this.pii.seal(mobile),
        email: this.pii.seal(email),
        mobileHash: mobile === null ? null : this.pii.hash(normaliseIdentifier('mobile', mobile)),
        emailHash: email === null ? null : this.pii.hash(normaliseIdentifier('email', email)),
        piiVersion: this.pii.version,
      })
      .where('id = :id', { id: row.id })
      .andWhere(row.pii_version === null ? 'pii_version IS NULL' : 'pii_version = :old', { old: row.pii_version })
      .execute();
    if (!result.affected) return false;
    const column = tx.connection.driver.escape('value');
    await tx.query(`DELETE FROM sys_user_identifier WHERE user_id = ? AND kind IN ('mobile', 'email')`, [row.id]);
    const keys = [
      ...(mobile === null ? [] : [{ kind: 'mobile', value: this.pii.hash(normaliseIdentifier('mobile', mobile)) }]),
      ...(email === null ? [] : [{ kind: 'email', value: this.pii.hash(normaliseIdentifier('email', email)) }]),
    ];
    // OR IGNORE: two users left holding one value by an earlier migration's clash (its start log named them) keep their rows.
    const ignore = tx.connection.driver.options.type.includes('sqlite') ? 'OR IGNORE' : 'IGNORE';
    if (keys.length)
      await tx.query(
        `INSERT ${ignore} INTO sys_user_identifier (${column}, user_id, kind) VALUES ${keys.map(() => '(?, ?, ?)').join(', ')}`,
        keys.flatMap((k) => [k.value, row.id, k.kind]),
      );
    return true;
  }
}
