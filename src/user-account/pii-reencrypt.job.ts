import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';

import { PiiCipher } from '../pii/pii-cipher';
import { normaliseIdentifier } from './user-identifier';

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
      const moved = await this.dataSource.transaction((tx) => this.moveBatch(tx, version, after, batchSize));
      if (!moved) break;
      changed += moved.count;
      after = moved.last;
    }
    if (changed) this.logger.log(`personal data of ${changed} users encrypted under ${version}`);
    return changed;
  }

  /**
   * The next `size` rows after `after` not under `version`, read and written in one transaction; on MariaDB the
   * rows are read FOR UPDATE, so that an administrator's change of one waits rather than being overwritten.
   */
  private async moveBatch(
    tx: EntityManager,
    version: string,
    after: string,
    size: number,
  ): Promise<{ count: number; last: string } | null> {
    const sqlite = tx.connection.driver.options.type.includes('sqlite');
    const rows: Row[] = await tx.query(
      'SELECT id, mobile, email, pii_version FROM sys_user WHERE id > ? AND (pii_version IS NULL OR pii_version <> ?)' +
        ` ORDER BY id LIMIT ${Number(size)}${sqlite ? '' : ' FOR UPDATE'}`,
      [after, version],
    );
    if (!rows.length) return null;
    // A row never encrypted keeps the identifier it had, hashed as it stands: a value an earlier migration left
    // un-normalised because it clashed with another user's stays apart from that user's, as before.
    const plainIds = rows.filter((r) => r.pii_version === null).map((r) => r.id);
    const held = new Map<string, string>();
    if (plainIds.length) {
      const found: { v: string; user_id: string; kind: string }[] = await tx.query(
        `SELECT ${tx.connection.driver.escape('value')} AS v, user_id, kind FROM sys_user_identifier` +
          ` WHERE kind IN ('mobile', 'email') AND user_id IN (${plainIds.map(() => '?').join(', ')})`,
        plainIds,
      );
      for (const k of found) held.set(`${k.user_id}\n${k.kind}`, k.v);
    }
    const keyOf = (id: string, kind: 'mobile' | 'email', value: string) =>
      this.pii.hash(held.get(`${id}\n${kind}`) ?? normaliseIdentifier(kind, value));
    const keys: unknown[] = [];
    for (const row of rows) {
      const mobile = this.pii.reveal(row.mobile);
      const email = this.pii.reveal(row.email);
      const mobileHash = mobile === null ? null : this.pii.hash(normaliseIdentifier('mobile', mobile));
      const emailHash = email === null ? null : this.pii.hash(normaliseIdentifier('email', email));
      await tx.query(
        'UPDATE sys_user SET mobile = ?, email = ?, mobile_hash = ?, email_hash = ?, pii_version = ? WHERE id = ?',
        [this.pii.seal(mobile), this.pii.seal(email), mobileHash, emailHash, version, row.id],
      );
      if (mobile !== null) keys.push(keyOf(row.id, 'mobile', mobile), row.id, 'mobile');
      if (email !== null) keys.push(keyOf(row.id, 'email', email), row.id, 'email');
    }
    const ids = rows.map((r) => r.id);
    await tx.query(
      `DELETE FROM sys_user_identifier WHERE kind IN ('mobile', 'email') AND user_id IN (${ids.map(() => '?').join(', ')})`,
      ids,
    );
    // IGNORE: two users left holding one value by an earlier migration's clash (its start log named them) keep their rows.
    if (keys.length)
      await tx.query(
        `INSERT ${sqlite ? 'OR IGNORE' : 'IGNORE'} INTO sys_user_identifier (${tx.connection.driver.escape('value')}, user_id, kind)` +
          ` VALUES ${Array.from({ length: keys.length / 3 }, () => '(?, ?, ?)').join(', ')}`,
        keys,
      );
    return { count: rows.length, last: ids[ids.length - 1] };
  }
}
