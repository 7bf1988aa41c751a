import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { Cron, CronExpression } from '@nestjs/schedule';
import { AuditLogService, SYSTEM_ACTOR } from '../audit/audit-log.service';
import { AppException } from '../common/app.exception';
import { Clock } from '../common/clock';
import { ErrorCode } from '../common/error-code';
import { NotificationService } from '../notification/notification.service';
import { DormantAccountPayload, NotificationKind } from '../notification/notification.types';
import { KeyedMutex } from '../store/keyed-mutex';
import { Keys } from '../store/keys';
import { StrategyService } from '../strategy/strategy.service';
import { ALL_PERMISSIONS } from '../user-account/grants';
import { DAY_MS } from '../user-account/password-expiry';
import { RoleService } from '../user-account/role.service';
import { UserAccountService } from '../user-account/user-account.service';
import { UserEntity } from '../user-account/user.entity';
import { UserRepository } from '../user-account/user.repository';

const PAGE = 500;

/**
 * Contract §9 dormantDays: once a day, every enabled account without a successful login for
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
  private running: Promise<number> | null = null;
  private stopped = false;

  constructor(
    private readonly strategy: StrategyService,
    private readonly roles: RoleService,
    private readonly users: UserRepository,
    private readonly accounts: UserAccountService,
    private readonly notifications: NotificationService,
    private readonly audit: AuditLogService,
    private readonly mutex: KeyedMutex,
    private readonly clock: Clock,
  ) {}

  @Cron(CronExpression.EVERY_DAY_AT_3AM, { name: 'dormant-accounts' })
  daily(): void {
    void this.runLogged();
  }

  async onModuleDestroy() {
    // As the password-expiry reminder: no sweep may start, or keep going, on a closing database.
    this.stopped = true;
    await this.running?.catch(() => undefined);
  }

  /** One sweep; resolves to the number of accounts this call disabled. Overlapping calls share one sweep. */
  run(): Promise<number> {
    if (this.stopped) return Promise.resolve(0);
    this.running ??= this.sweepAlone().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async runLogged(): Promise<void> {
    try {
      const disabled = await this.run();
      if (disabled) this.logger.log(`dormant accounts: disabled ${disabled} account(s)`);
    } catch (err) {
      this.logger.warn(`dormant accounts sweep failed: ${(err as Error)?.name ?? typeof err}`);
    }
  }

  /** The sweep under the cluster-wide lock; 0 without sweeping when another instance holds it. */
  private async sweepAlone(): Promise<number> {
    let entered = false;
    try {
      // No wait: the instance holding the lock does today's work.
      return await this.mutex.run(Keys.dormantSweepMutex, () => {
        entered = true;
        return this.sweep();
      }, undefined, 0);
    } catch (err) {
      if (!entered && err instanceof AppException && err.code === ErrorCode.SERVICE_UNAVAILABLE) {
        this.logger.log('dormant accounts: another instance is sweeping');
        return 0;
      }
      throw err;
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
        if (this.stopped) return disabled;
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
    await this.notifications.notify(user.id, NotificationKind.ACCOUNT_DORMANT, user.email ? ['site', 'email'] : ['site'], payload)
      .catch((err: Error) => this.logger.warn(`could not notify a dormant account's user: ${err?.name ?? typeof err}`));
    return true;
  }
}
