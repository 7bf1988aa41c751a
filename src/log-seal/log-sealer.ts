import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';

import { isUniqueViolation } from '../common/db-errors';
import { KeyedMutex } from '../store/keyed-mutex';
import { Keys } from '../store/keys';
import { LogChainRepository } from './log-chain.repository';
import { ChainLink, SealKey } from './seal-key';
import { SealedLogRepository } from './sealed-log.repository';
import { SealedLogs } from './sealed-logs';

/** Tuning of the background sealer. Times are milliseconds. */
export const SEALER = {
  /** How often every instance looks for rows to seal. */
  pollMs: 1_000,
  /** Rows sealed per statement. */
  batch: 200,
  /** The lease of the seal mutex (renewed while a pass runs). */
  leaseMs: 30_000,
  /**
   * Batches per table in one background hold of the mutex: a backlog is worked off over several
   * polls, so that a verification or retention waiting for the mutex never waits long.
   */
  batchesPerPoll: 25,
} as const;

/** Passes in a row that may find another sealer first before this one gives up until its next poll. */
const MAX_CONFLICTS = 20;

/** Called after each sealing, under the seal mutex (the forwarding to syslog), with its bound of batches per table. */
export interface AfterSealing {
  afterSealing(batches: number): Promise<void>;
}

/**
 * Seals the rows of both logs in the background, in id order, shortly after they are written
 * (docs/security.md#sealed-logs): the login writes its row with its MAC and nothing more, and
 * whichever instance takes the seal mutex chains what has been written since. Each row's seal
 * covers its place, its id, its MAC and the previous row's id and seal, so a removed or inserted
 * row breaks the chain. The mutex keeps passes one at a time across instances; should two ever
 * overlap (a lease lost to a paused process), the unique index on seal_seq refuses the second's
 * places, so the chain never forks.
 */
@Injectable()
export class LogSealer implements OnModuleDestroy {
  private readonly logger = new Logger('LogSeal');
  private running: Promise<void> | null = null;
  private stopped = false;
  private after: AfterSealing | null = null;

  constructor(
    private readonly logs: SealedLogs,
    private readonly chains: LogChainRepository,
    private readonly key: SealKey,
    private readonly mutex: KeyedMutex,
  ) {}

  /** The forwarding registers here: it runs after sealing, in the same hold of the mutex. */
  setAfterSealing(after: AfterSealing): void {
    this.after = after;
  }

  async onModuleDestroy() {
    this.stopped = true;
    await this.running?.catch(() => undefined);
  }

  @Interval('log-sealer', SEALER.pollMs)
  poll(): void {
    if (this.running || this.stopped) return;
    this.running = this.mutex
      .tryRun(Keys.logSealMutex, () => this.sealAll(SEALER.batchesPerPoll), SEALER.leaseMs)
      .then(() => undefined)
      .catch((err: unknown) => this.logger.warn(`sealing failed: ${(err as Error)?.constructor?.name ?? typeof err}`))
      .finally(() => {
        this.running = null;
      });
  }

  /**
   * Seals every row written until now, waiting for the mutex (verification calls it first); resolves
   * once done. Rows written meanwhile may be sealed too.
   */
  async sealNow(): Promise<void> {
    await this.mutex.run(Keys.logSealMutex, () => this.sealAll(Number.POSITIVE_INFINITY), SEALER.leaseMs);
  }

  /**
   * Both tables, up to the highest id at the start and at most `batches` batches each; then whatever
   * runs after sealing. The caller holds the mutex.
   */
  private async sealAll(batches: number): Promise<void> {
    for (const log of this.logs.all) {
      const upTo = await log.maxId();
      let conflicts = 0;
      for (let done = 0; done < batches && !this.stopped;) {
        const sealed = await this.pass(log, upTo);
        // Another sealer took the places first: read the chain again and go on after it.
        if (sealed === 'conflict' && ++conflicts <= MAX_CONFLICTS) continue;
        if (sealed !== SEALER.batch) break;
        done += 1;
      }
    }
    if (this.after && !this.stopped) await this.after.afterSealing(batches);
  }

  /** Seals one batch; resolves to how many rows it sealed, or 'conflict' when another sealer was first. */
  private async pass(log: SealedLogRepository, upTo: string): Promise<number | 'conflict'> {
    const state = await this.chains.state(log.table);
    const rows = await log.unsealed(state.legacyBelow, upTo, SEALER.batch);
    if (!rows.length) return 0;
    let prev = await this.head(log);
    const writes = rows.map(({ id, rowMac }) => {
      const seq = prev.seq + 1;
      const link = { seq, id, seal: this.key.seal(log.table, seq, id, rowMac, prev) };
      const write = { id, seq, prev: prev.id, seal: link.seal };
      prev = link;
      return write;
    });
    try {
      const written = await log.writeSeals(writes);
      if (written !== writes.length) {
        // Rows gone or sealed between the read and the write: only another sealer racing this one
        // does that. The next pass starts from what is stored.
        this.logger.warn(`${log.table}: sealed ${written} of ${writes.length} rows; the next pass goes on`);
        return 'conflict';
      }
    } catch (err) {
      if (isUniqueViolation(err)) return 'conflict';
      throw err;
    }
    await this.chains.advanceHead(log.table, prev, this.key.headMac(log.table, prev));
    return writes.length;
  }

  /**
   * Where the chain goes on: the stored head or, when a pass stopped between its seals and the head
   * (the head then lags), the last sealed row. Never the last row alone: had someone deleted the
   * newest rows, new rows must not take their places.
   */
  private async head(log: SealedLogRepository): Promise<ChainLink> {
    const [state, last] = [await this.chains.state(log.table), await log.last()];
    const stored = state.head.seq > 0 ? state.head : this.key.genesis(log.table);
    return last && last.seq > stored.seq ? last : stored;
  }
}
