import { Injectable } from '@nestjs/common';

import type { SealedTable } from '../audit/sealed-log-columns';
import { KeyedMutex } from '../store/keyed-mutex';
import { Keys } from '../store/keys';
import { LogChainRepository, Release } from './log-chain.repository';
import { SEALER } from './log-sealer';
import { SealKey } from './seal-key';
import { SealedLogs } from './sealed-logs';

/**
 * Retention's deletions from the two sealed logs (src/retention), made so that the chain still
 * verifies: before sealed rows go, the runs of places they leave empty are recorded with the seal
 * of each run's last row and a MAC (sys_log_release). A gap no recorded run explains is a missing
 * row. Each batch holds the seal mutex, so a row is never sealed between being picked and deleted.
 */
@Injectable()
export class LogReleaseService {
  constructor(
    private readonly logs: SealedLogs,
    private readonly chains: LogChainRepository,
    private readonly key: SealKey,
    private readonly mutex: KeyedMutex,
  ) {}

  /** Deletes up to `limit` rows of `table` written before `before` (oldest first); resolves to how many. */
  deleteBatchBefore(table: SealedTable, before: Date, limit: number): Promise<number> {
    return this.mutex.run(
      Keys.logSealMutex,
      async () => {
        const log = this.logs.of(table);
        const rows = await log.oldRows(before, limit);
        const runs = runsOf(rows.filter((r) => r.seq !== null) as { id: string; seq: number; seal: string }[]);
        const releases = runs.map((run) => ({
          fromSeq: run[0].seq,
          last: run[run.length - 1],
          mac: this.key.releaseMac(table, run[0].seq, run[run.length - 1]),
        }));
        // Recorded first: should the delete not happen, a run over rows still there reads right.
        for (const release of releases) await this.chains.addRelease(table, release);
        const deleted = await log.deleteIds(rows.map((r) => r.id));
        for (const release of releases) await this.joinPrevious(table, release);
        return deleted;
      },
      SEALER.leaseMs,
    );
  }

  /** Keeps the runs few: one that meets the run before it is joined to it. */
  private async joinPrevious(table: SealedTable, release: Release): Promise<void> {
    const before = await this.chains.releaseEndingAt(table, release.fromSeq - 1);
    if (!before) return;
    const merged = {
      fromSeq: before.fromSeq,
      last: release.last,
      mac: this.key.releaseMac(table, before.fromSeq, release.last),
    };
    await this.chains.joinReleases(table, merged, release.fromSeq);
  }
}

/** The rows split into runs of consecutive places, in place order. */
function runsOf<T extends { seq: number }>(rows: T[]): T[][] {
  const sorted = [...rows].sort((a, b) => a.seq - b.seq);
  const runs: T[][] = [];
  for (const row of sorted) {
    const run = runs[runs.length - 1];
    if (run && row.seq === run[run.length - 1].seq + 1) run.push(row);
    else runs.push([row]);
  }
  return runs;
}
