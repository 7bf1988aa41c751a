import { randomUUID } from 'node:crypto';

import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { Cron } from '@nestjs/schedule';

import { AuditLogService, SYSTEM_ACTOR } from '../audit/audit-log.service';
import { Clock } from '../common/clock';
import { AppConfig } from '../config/app-config';
import { LogReleaseService } from '../log-seal/log-release.service';
import { DailyJob } from '../store/daily-job';
import { KeyedMutex } from '../store/keyed-mutex';
import { Keys } from '../store/keys';
import { KvStore } from '../store/kv.store';
import { StrategyService } from '../strategy/strategy.service';

/** At most this many rows per DELETE statement. */
export const RETENTION_BATCH = 1_000;
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
/** The job's lease; renewed every third of it while the job runs (KeyedMutex.tryRun). */
const LEASE_MS = 60_000;

export interface RetentionResult {
  /** Rows logged before this time were deleted. */
  cutoff: Date;
  loginLog: number;
  auditLog: number;
}

/**
 * Retention: once a day, on one instance of a cluster at a time, the login-log and
 * audit-log rows older than LOG_RETENTION_DAYS are deleted, at most RETENTION_BATCH per statement:
 * the ids of the oldest rows are read through the time index, then deleted by primary key (the
 * same two statements on SQLite, MySQL and MariaDB; SQLite has no DELETE … LIMIT in its usual
 * builds). Each statement is short, so logins keep writing between them. Never a row younger than
 * the current maxFailureInterval: the lock counts failures from the log. The deletions keep the
 * logs' seal chains verifiable (src/log-seal/log-release.service.ts). The work done is written to
 * the audit log (`log.retention` by `system`).
 */
@Injectable()
export class LogRetentionService implements OnModuleDestroy {
  private readonly logger = new Logger('Retention');
  private readonly job: DailyJob<RetentionResult | null>;

  constructor(
    private readonly config: AppConfig,
    private readonly release: LogReleaseService,
    private readonly audit: AuditLogService,
    private readonly strategy: StrategyService,
    mutex: KeyedMutex,
    private readonly store: KvStore,
    private readonly clock: Clock,
  ) {
    this.job = new DailyJob<RetentionResult | null>({
      idle: null,
      overlap: 'skip',
      turn: { mutex, key: Keys.logRetentionMutex, leaseMs: LEASE_MS },
    });
  }

  /** Every instance ticks; the first to take the day's key runs the job, the others skip it that day. */
  @Cron('30 3 * * *', { name: 'log-retention' })
  async daily(): Promise<void> {
    if (this.config.LOG_RETENTION_DAYS === 0 || this.job.stopped) return;
    try {
      const day = this.clock.now().toISOString().slice(0, 10);
      if (!(await this.store.setIfAbsent(Keys.logRetentionDay(day), randomUUID(), 23 * HOUR_MS))) return;
      const result = await this.run();
      if (result)
        this.logger.log(
          `deleted ${result.loginLog} login-log and ${result.auditLog} audit-log row(s) before ${result.cutoff.toISOString()}`,
        );
    } catch (err) {
      this.logger.warn(`log retention failed: ${(err as Error)?.constructor?.name ?? typeof err}`);
    }
  }

  async onModuleDestroy() {
    // The loop stops between two statements; the closing database must not see a half-sent one.
    await this.job.stop();
  }

  /**
   * One pass (the daily tick calls it; so can tests and operators' tooling). Resolves to what it
   * deleted, or null when retention is off (0) or another instance is running the job right now.
   */
  async run(): Promise<RetentionResult | null> {
    const days = this.config.LOG_RETENTION_DAYS;
    if (days === 0) return null;
    return this.job.run(() => this.pass(days));
  }

  private async pass(days: number): Promise<RetentionResult> {
    const { maxFailureInterval } = await this.strategy.loginStrategy();
    // The later of the two: rows the failure count may still read are kept whatever the retention.
    const keepMs = Math.max(days * DAY_MS, maxFailureInterval * HOUR_MS);
    const cutoff = new Date(this.clock.nowMs() - keepMs);
    const loginLog = await this.drain((limit) => this.release.deleteBatchBefore('sys_login_log', cutoff, limit));
    const auditLog = await this.drain((limit) => this.release.deleteBatchBefore('sys_audit_log', cutoff, limit));
    await this.audit.recordDone('log.retention', {
      ...SYSTEM_ACTOR,
      targetId: null,
      detail: { retentionDays: days, maxFailureInterval, cutoff: cutoff.toISOString(), loginLog, auditLog },
    });
    return { cutoff, loginLog, auditLog };
  }

  /** Batches until one comes back short; yields between statements so requests interleave. */
  private async drain(batch: (limit: number) => Promise<number>): Promise<number> {
    let total = 0;
    while (!this.job.stopped) {
      const deleted = await batch(RETENTION_BATCH);
      total += deleted;
      if (deleted < RETENTION_BATCH) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    return total;
  }
}
