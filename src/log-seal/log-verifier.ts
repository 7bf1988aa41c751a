import { Injectable } from '@nestjs/common';

import { AuditLogService, DoneEntry } from '../audit/audit-log.service';
import type { SealedTable } from '../audit/sealed-log-columns';
import { LogChainRepository, Release } from './log-chain.repository';
import { LogSealer } from './log-sealer';
import { ChainLink, SealKey } from './seal-key';
import { SealedLogRepository } from './sealed-log.repository';
import { SealedLogs } from './sealed-logs';

/** Sealed rows read per query while checking. */
const PAGE = 1_000;

/**
 * Why a row is bad: `altered` — its fields, id or seal are not what was sealed; `missing` — a row
 * of the chain is gone (`id` names the last one gone before the gap); `inserted` — a row the
 * service did not write (no MAC), or a second row at one place.
 */
export type BadReason = 'altered' | 'missing' | 'inserted';

export interface FirstBad {
  table: SealedTable;
  id: string;
  reason: BadReason;
}

export interface VerifyResult {
  ok: boolean;
  /** Sealed rows checked, both tables together. */
  checked: number;
  /** Rows written before sealing began, still kept: they carry no seal and are never counted as bad. */
  unsealed: number;
  /** The first bad row: the login log's first, else the audit log's; null when none. */
  firstBad: FirstBad | null;
}

interface TableResult {
  checked: number;
  unsealed: number;
  firstBad: FirstBad | null;
}

/**
 * POST /sys/auditLog/verify and `npm run audit:verify` (docs/security.md#sealed-logs): seals every
 * row written until now, then walks each table's chain from its start, place by place, checking
 * each row's MAC and seal against the one before it. A gap is retention's work only where its runs
 * (sys_log_release, each with a MAC) cover it exactly; the walk must reach the stored head, so
 * removing the newest rows shows too.
 */
@Injectable()
export class LogVerifier {
  constructor(
    private readonly logs: SealedLogs,
    private readonly chains: LogChainRepository,
    private readonly key: SealKey,
    private readonly sealer: LogSealer,
    private readonly audit: AuditLogService,
  ) {}

  /** Verifies and records the verification (`auditLog.verify`, by `by`). */
  async verify(by: Omit<DoneEntry, 'targetId' | 'detail'>): Promise<VerifyResult> {
    await this.sealer.sealNow();
    const result: VerifyResult = { ok: true, checked: 0, unsealed: 0, firstBad: null };
    for (const log of this.logs.all) {
      const one = await this.check(log);
      result.checked += one.checked;
      result.unsealed += one.unsealed;
      result.firstBad ??= one.firstBad;
    }
    result.ok = result.firstBad === null;
    await this.audit.record({ action: 'auditLog.verify', ...by, targetId: null, detail: { ...result } });
    return result;
  }

  private async check(log: SealedLogRepository): Promise<TableResult> {
    const table = log.table;
    const state = await this.chains.state(table);
    const unsealed = await log.countUnsealedBelow(state.legacyBelow);
    const releases = await this.chains.releasesOf(table);
    let checked = 0;
    const bad = (id: string, reason: BadReason): TableResult => ({
      checked,
      unsealed,
      firstBad: { table, id, reason },
    });
    let good: ChainLink = this.key.genesis(table);
    for (;;) {
      const rows = await log.sealedAfter(good.seq, PAGE);
      for (const [i, r] of rows.entries()) {
        const seq = r.seq!;
        if (seq <= good.seq) return bad(r.id, 'inserted');
        if (seq > good.seq + 1) {
          const resumed = this.acrossReleases(table, releases, good.seq + 1, seq - 1);
          if (!resumed) return bad(r.prev ?? r.id, 'missing');
          good = resumed;
        }
        if (r.rowMac === null) return bad(r.id, 'inserted');
        const rowMac = r.rowMac;
        if (!this.key.matches(rowMac, (s) => this.key.rowMac(table, r.fields, s))) return bad(r.id, 'altered');
        const prev = good;
        if (r.prev !== prev.id || !this.key.matches(r.seal, (s) => this.key.seal(table, seq, r.id, rowMac, prev, s))) {
          // A row carrying a place and seal that are not its own: when the next row follows the
          // good one as if it were not there, it is a row put in; otherwise this row was changed.
          const next = rows[i + 1];
          const skipsIt =
            next?.seq === seq &&
            next.rowMac !== null &&
            this.key.matches(next.seal, (s) => this.key.seal(table, seq, next.id, next.rowMac, prev, s));
          return bad(r.id, skipsIt ? 'inserted' : 'altered');
        }
        good = { seq, id: r.id, seal: r.seal as string };
        checked += 1;
      }
      if (rows.length < PAGE) break;
    }
    // The newest rows: the walk must reach the head the sealer stored (or runs retention released).
    const head = state.head;
    if (head.seq > good.seq) {
      const resumed = this.acrossReleases(table, releases, good.seq + 1, head.seq);
      const intact =
        this.key.matches(state.headMac, (s) => this.key.headMac(table, head, s)) && resumed?.seal === head.seal;
      if (!intact) return bad(head.id, 'missing');
    }
    return { checked, unsealed, firstBad: null };
  }

  /**
   * Where the chain goes on after places `from`..`to`, when released runs with valid MACs cover
   * exactly those places (the last run's last row); null otherwise.
   */
  private acrossReleases(
    table: SealedTable,
    releases: Map<number, Release>,
    from: number,
    to: number,
  ): ChainLink | null {
    let at = from;
    let last: ChainLink | null = null;
    while (at <= to) {
      const run = releases.get(at);
      if (
        !run ||
        run.last.seq > to ||
        !this.key.matches(run.mac, (s) => this.key.releaseMac(table, run.fromSeq, run.last, s))
      )
        return null;
      last = run.last;
      at = run.last.seq + 1;
    }
    return last;
  }
}
