import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { Cron, CronExpression } from '@nestjs/schedule';

import { AuditLogService, SYSTEM_ACTOR } from '../audit/audit-log.service';
import { Clock } from '../common/clock';
import { NotificationService } from '../notification/notification.service';
import { DormantAccountPayload, NotificationKind } from '../notification/notification.types';
import { DailyJob } from '../store/daily-job';
import { KeyedMutex } from '../store/keyed-mutex';
import { Keys } from '../store/keys';
import { StrategyService } from '../strategy/strategy.service';
import { AccountStateService } from '../user-account/account-state.service';
import { ALL_PERMISSIONS } from '../user-account/grants';
import { DAY_MS } from '../user-account/password-expiry';
import { RoleService } from '../user-account/role.service';
import { UserEntity } from '../user-account/user.entity';
import { UserRepository } from '../user-account/user.repository';

const PAGE = 500;

/**
 * dormantDays: once a day, every enabled account without a successful login for
 * dormantDays days (since its last one, or since its creation when it never logged in) is
 * disabled as an administrator's disable does it (sessions and message streams end), audited as
 * `user.disable` by `system`, and its user told through the site and, with a mailbox, by e-mail.
 * Accounts holding `*` are exempt. dormantDays = 0 disables nobody.
 *
 * One instance at a time: the sweep runs under a store-wide lock (SET NX with a renewed lease, the
 * KeyedMutex every instance shares); an instance that finds it taken skips its sweep. Each disable
 * is conditional (still enabled, still dormant, still without `*`, under the account's login
 * mutex), so a sweep that follows another finds nothing left to do: nobody is disabled, audited or
 * notified twice, and a login that lands during the sweep keeps its account.
 */
@Injectable()
export class DormantAccountJob implements OnModuleDestroy {
  private readonly logger = new Logger('DormantAccounts');
  private readonly job: DailyJob<number>;

  constructor(
    private readonly strategy: StrategyService,
    private readonly roles: RoleService,
    private readonly users: UserRepository,
    private readonly accounts: AccountStateService,
    private readonly notifications: NotificationService,
    private readonly audit: AuditLogService,
    mutex: KeyedMutex,
    private readonly clock: Clock,
  ) {
    this.job = new DailyJob<number>({
      idle: 0,
      overlap: 'share',
      turn: {
        mutex,
        key: Keys.dormantSweepMutex,
        onTaken: () => this.logger.log('dormant accounts: another instance is sweeping'),
      },
    });
  }

  @Cron(CronExpression.EVERY_DAY_AT_3AM, { name: 'dormant-accounts' })
  daily(): void {
    void this.runLogged();
  }

  async onModuleDestroy() {
    // As the password-expiry reminder: no sweep may start, or keep going, on a closing database.
    await this.job.stop();
  }

  /**
   * One sweep; resolves to the number of accounts this call disabled, 0 when another instance
   * holds the cluster-wide lock. Overlapping calls share one sweep.
   */
  run(): Promise<number> {
    return this.job.run(() => this.sweep());
  }

  private async runLogged(): Promise<void> {
    try {
      const disabled = await this.run();
      if (disabled) this.logger.log(`dormant accounts: disabled ${disabled} account(s)`);
    } catch (err) {
      this.logger.warn(`dormant accounts sweep failed: ${(err as Error)?.name ?? typeof err}`);
    }
  }

  private async sweep(): Promise<number> {
    const { dormantDays } = await this.strategy.userStrategy();
    if (dormantDays <= 0) return 0;
    const cutoff = new Date(this.clock.nowMs() - dormantDays * DAY_MS);
    const exempt = (await this.roles.list()).filter((r) => r.permissions.includes(ALL_PERMISSIONS)).map((r) => r.code);
    let disabled = 0;
    let afterId = '';
    for (;;) {
      const batch = await this.users.dormantSince(cutoff, exempt, afterId, PAGE);
      for (const user of batch) {
        if (this.job.stopped) return disabled;
        if (await this.disable(user, cutoff, dormantDays)) disabled += 1;
      }
      if (batch.length < PAGE) break;
      afterId = batch[batch.length - 1].id;
    }
    return disabled;
  }

  /** True when this call disabled the account (then audited and notified). */
  private async disable(user: UserEntity, cutoff: Date, days: number): Promise<boolean> {
    if (!(await this.accounts.disableDormant(user.id, cutoff))) return false;
    const lastLoginTime = user.lastLoginTime ? user.lastLoginTime.toISOString() : null;
    await this.audit.recordDone('user.disable', {
      ...SYSTEM_ACTOR,
      targetId: user.id,
      targetName: user.username,
      detail: { username: user.username, reason: 'dormant', dormantDays: days, lastLoginTime },
    });
    const payload: DormantAccountPayload = { account: user.username, lastLoginTime, days };
    // The disable has happened: a notification that cannot be queued is logged, not retried by disabling again.
    await this.notifications
      .notify(user.id, NotificationKind.ACCOUNT_DORMANT, user.email ? ['site', 'email'] : ['site'], payload)
      .catch((err: Error) => this.logger.warn(`could not notify a dormant account's user: ${err?.name ?? typeof err}`));
    return true;
  }
}
