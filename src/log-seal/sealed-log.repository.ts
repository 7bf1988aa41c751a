import { ObjectLiteral, Repository } from 'typeorm';

import type { SealedLogColumns, SealedTable } from '../audit/sealed-log-columns';
import type { ChainLink } from './seal-key';

/** A row of either log, with its id and seal columns. */
export type SealedEntity = ObjectLiteral & SealedLogColumns & { id: string };

/** A log row with its seal columns, as the verification and the forwarding read it. */
export interface SealedRow {
  id: string;
  /** Its place in the chain; null while unsealed. */
  seq: number | null;
  /** The id of the row before it in the chain, as sealed. */
  prev: string | null;
  seal: string | null;
  rowMac: string | null;
  /** The fields its MAC covers, as read now. */
  fields: unknown[];
  row: SealedEntity;
}

/** One row's seal, as the sealer writes it. */
export interface SealWrite {
  id: string;
  seq: number;
  prev: string;
  seal: string;
}

/** A log table's own columns that the seals need. */
export interface SealedLogSpec {
  table: SealedTable;
  /** The time column (retention deletes by it). */
  timeColumn: string;
  /** What a row's MAC covers (loginLogSealFields, auditLogSealFields). */
  fields(row: SealedEntity): unknown[];
}

/**
 * The seal columns of one log table (sys_login_log or sys_audit_log): the only place that queries
 * them, and retention's deletions, which must leave the chain readable (log-release.service.ts).
 * Every statement is one statement: a pass never leaves half of a write behind, and the unique
 * index on seal_seq refuses a second sealer's overlapping places (docs/security.md#sealed-logs).
 */
export class SealedLogRepository {
  constructor(
    private readonly rows: Repository<SealedEntity>,
    readonly spec: SealedLogSpec,
  ) {}

  get table(): SealedTable {
    return this.spec.table;
  }

  /** The sealed row with the highest place, if any. */
  async last(): Promise<ChainLink | null> {
    const row = await this.rows
      .createQueryBuilder('r')
      .select('r.id', 'id')
      .addSelect('r.seal_seq', 'seq')
      .addSelect('r.seal', 'seal')
      .where('r.seal_seq >= 1')
      .orderBy('r.seal_seq', 'DESC')
      .limit(1)
      .getRawOne<{ id: string | number; seq: string | number; seal: string }>();
    return row ? { seq: Number(row.seq), id: String(row.id), seal: row.seal } : null;
  }

  /** The highest id written so far ('0' when none). */
  async maxId(): Promise<string> {
    const row = await this.rows
      .createQueryBuilder('r')
      .select('MAX(r.id)', 'id')
      .getRawOne<{ id: string | number | null }>();
    return String(row?.id ?? 0);
  }

  /** Up to `limit` unsealed rows with `fromId` <= id <= `toId`, by id. */
  async unsealed(fromId: string, toId: string, limit: number): Promise<{ id: string; rowMac: string | null }[]> {
    const rows = await this.rows
      .createQueryBuilder('r')
      .select('r.id', 'id')
      .addSelect('r.row_mac', 'rowMac')
      .where('r.seal_seq IS NULL')
      .andWhere('r.id >= :fromId AND r.id <= :toId', { fromId: Number(fromId), toId: Number(toId) })
      .orderBy('r.id', 'ASC')
      .limit(limit)
      .getRawMany<{ id: string | number; rowMac: string | null }>();
    return rows.map((r) => ({ id: String(r.id), rowMac: r.rowMac ?? null }));
  }

  /**
   * Writes the seals in one statement, only on rows still unsealed; how many it wrote. A place
   * another sealer took meanwhile fails the whole statement on the unique index (nothing written).
   */
  async writeSeals(writes: SealWrite[]): Promise<number> {
    if (!writes.length) return 0;
    const q = (name: string) => this.rows.manager.connection.driver.escape(name);
    const params: unknown[] = [];
    const cases = (value: (w: SealWrite) => unknown) =>
      `CASE ${q('id')} ${writes
        .map((w) => {
          params.push(Number(w.id), value(w));
          return 'WHEN ? THEN ?';
        })
        .join(' ')} END`;
    const sql =
      `UPDATE ${q(this.table)} SET ${q('seal_seq')} = ${cases((w) => w.seq)},` +
      ` ${q('seal_prev')} = ${cases((w) => Number(w.prev))}, ${q('seal')} = ${cases((w) => w.seal)}` +
      ` WHERE ${q('id')} IN (${writes.map(() => '?').join(', ')}) AND ${q('seal_seq')} IS NULL`;
    params.push(...writes.map((w) => Number(w.id)));
    const runner = this.rows.manager.connection.createQueryRunner();
    try {
      const result = await runner.query(sql, params, true);
      return result.affected ?? 0;
    } finally {
      await runner.release();
    }
  }

  /** Up to `limit` sealed rows after place `seq`, in chain order, with every column. */
  async sealedAfter(seq: number, limit: number): Promise<SealedRow[]> {
    const rows = await this.rows
      .createQueryBuilder('r')
      .addSelect(['r.rowMac', 'r.sealSeq', 'r.sealPrev', 'r.seal'])
      .where('r.seal_seq > :seq', { seq })
      .orderBy('r.seal_seq', 'ASC')
      .addOrderBy('r.id', 'ASC')
      .limit(limit)
      .getMany();
    return rows.map((row) => ({
      id: String(row.id),
      seq: row.sealSeq === null || row.sealSeq === undefined ? null : Number(row.sealSeq),
      prev: row.sealPrev === null || row.sealPrev === undefined ? null : String(row.sealPrev),
      seal: row.seal ?? null,
      rowMac: row.rowMac ?? null,
      fields: this.spec.fields(row),
      row,
    }));
  }

  /** Rows written before sealing began (ids below `legacyBelow`) that are still there. */
  async countUnsealedBelow(legacyBelow: string): Promise<number> {
    return this.rows
      .createQueryBuilder('r')
      .where('r.seal_seq IS NULL AND r.id < :below', { below: Number(legacyBelow) })
      .getCount();
  }

  /** Retention: up to `limit` rows written before `before`, oldest first, with their places (the time index). */
  async oldRows(before: Date, limit: number): Promise<{ id: string; seq: number | null; seal: string | null }[]> {
    const rows = await this.rows
      .createQueryBuilder('r')
      .select('r.id', 'id')
      .addSelect('r.seal_seq', 'seq')
      .addSelect('r.seal', 'seal')
      .where(`r.${this.spec.timeColumn} < :before`, { before })
      .orderBy(`r.${this.spec.timeColumn}`, 'ASC')
      .limit(limit)
      .getRawMany<{ id: string | number; seq: string | number | null; seal: string | null }>();
    return rows.map((r) => ({ id: String(r.id), seq: r.seq === null ? null : Number(r.seq), seal: r.seal }));
  }

  /** Deletes the rows with these ids (one statement: callers bound the list). */
  async deleteIds(ids: string[]): Promise<number> {
    if (!ids.length) return 0;
    const result = await this.rows
      .createQueryBuilder()
      .delete()
      .whereInIds(ids.map((id) => Number(id)))
      .execute();
    return result.affected ?? ids.length;
  }
}
