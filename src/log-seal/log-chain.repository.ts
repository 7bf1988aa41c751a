import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';

import type { SealedTable } from '../audit/sealed-log-columns';
import { LogChainEntity, LogReleaseEntity } from './log-chain.entity';
import type { ChainLink } from './seal-key';

export interface ChainState {
  legacyBelow: string;
  /** The stored head; seq 0 before anything was sealed. */
  head: ChainLink;
  headMac: string | null;
  forwardedSeq: number;
}

/** A run of released places, as stored. */
export interface Release {
  fromSeq: number;
  last: ChainLink;
  mac: string;
}

/** `sys_log_chain` and `sys_log_release`: the only place that queries them. */
@Injectable()
export class LogChainRepository {
  constructor(
    @InjectRepository(LogChainEntity) private readonly chains: Repository<LogChainEntity>,
    @InjectRepository(LogReleaseEntity) private readonly releases: Repository<LogReleaseEntity>,
  ) {}

  /** The table's state (the migration writes both rows). */
  async state(table: SealedTable): Promise<ChainState> {
    const row = await this.chains.findOneByOrFail({ tableName: table });
    return {
      legacyBelow: String(row.legacyBelow),
      head: { seq: Number(row.headSeq), id: String(row.headId), seal: row.headSeal ?? '' },
      headMac: row.headMac,
      forwardedSeq: Number(row.forwardedSeq),
    };
  }

  /** Moves the stored head forward to `head` (never back: a slower pass cannot undo a later one). */
  async advanceHead(table: SealedTable, head: ChainLink, mac: string): Promise<void> {
    await this.chains
      .createQueryBuilder()
      .update(LogChainEntity)
      .set({ headSeq: String(head.seq), headId: head.id, headSeal: head.seal, headMac: mac })
      .where('table_name = :table AND head_seq < :seq', { table, seq: head.seq })
      .execute();
  }

  /**
   * Moves the forwarding cursor from `from` to `to`, in the caller's transaction when given; false
   * when it was no longer at `from` (another pass moved it).
   */
  async advanceForwarded(table: SealedTable, from: number, to: number, tx?: EntityManager): Promise<boolean> {
    const result = await (tx ?? this.chains.manager)
      .createQueryBuilder()
      .update(LogChainEntity)
      .set({ forwardedSeq: String(to) })
      .where('table_name = :table AND forwarded_seq = :from', { table, from })
      .execute();
    return result.affected === 1;
  }

  /**
   * Moves the forwarding cursor from `from` to `to` together with `work` (the outbox rows of that
   * batch), in one transaction: both or neither. False when the cursor was no longer at `from`.
   */
  async forwardInTransaction(
    table: SealedTable,
    from: number,
    to: number,
    work: (tx: EntityManager) => Promise<unknown>,
  ): Promise<boolean> {
    try {
      await this.chains.manager.transaction(async (tx) => {
        if (!(await this.advanceForwarded(table, from, to, tx))) throw new CursorMoved();
        await work(tx);
      });
      return true;
    } catch (err) {
      if (err instanceof CursorMoved) return false;
      throw err;
    }
  }

  /** Every released run of the table, by its first place. */
  async releasesOf(table: SealedTable): Promise<Map<number, Release>> {
    const rows = await this.releases.find({ where: { tableName: table }, order: { fromSeq: 'ASC' } });
    return new Map(
      rows.map((r) => [
        Number(r.fromSeq),
        {
          fromSeq: Number(r.fromSeq),
          last: { seq: Number(r.toSeq), id: String(r.lastId), seal: r.lastSeal },
          mac: r.mac,
        },
      ]),
    );
  }

  /**
   * Records a run. One recorded from the same place before (by a batch whose delete did not
   * happen) grows to this one when it is longer, and is otherwise kept.
   */
  async addRelease(table: SealedTable, release: Release): Promise<void> {
    const row = releaseRow(table, release);
    await this.releases.createQueryBuilder().insert().values(row).orIgnore().execute();
    const { tableName: _t, fromSeq: _f, ...changes } = row;
    await this.releases
      .createQueryBuilder()
      .update()
      .set(changes)
      .where('table_name = :table AND from_seq = :from AND to_seq < :to', {
        table,
        from: release.fromSeq,
        to: release.last.seq,
      })
      .execute();
  }

  /** The run that ends right before `seq`, if any. */
  async releaseEndingAt(table: SealedTable, seq: number): Promise<Release | null> {
    const row = await this.releases.findOneBy({ tableName: table, toSeq: String(seq) });
    return (
      row && { fromSeq: Number(row.fromSeq), last: { seq, id: String(row.lastId), seal: row.lastSeal }, mac: row.mac }
    );
  }

  /**
   * Joins two runs that meet: the first grows into `merged` (covering both), then the run that
   * began at `nextFrom` goes. Between the two statements both are stored, which still reads right.
   */
  async joinReleases(table: SealedTable, merged: Release, nextFrom: number): Promise<void> {
    const { tableName: _t, fromSeq: _f, ...changes } = releaseRow(table, merged);
    await this.releases.update({ tableName: table, fromSeq: String(merged.fromSeq) }, changes);
    await this.releases.delete({ tableName: table, fromSeq: String(nextFrom) });
  }
}

class CursorMoved extends Error {}

function releaseRow(table: SealedTable, r: Release): LogReleaseEntity {
  return {
    tableName: table,
    fromSeq: String(r.fromSeq),
    toSeq: String(r.last.seq),
    lastId: r.last.id,
    lastSeal: r.last.seal,
    mac: r.mac,
  };
}
