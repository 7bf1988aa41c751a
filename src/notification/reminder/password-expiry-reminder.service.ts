import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { Cron, CronExpression, Timeout } from '@nestjs/schedule';

import { Clock } from '../../common/clock';
import { DailyJob } from '../../store/daily-job';
import { StrategyService } from '../../strategy/strategy.service';
import type { NotifyChannel } from '../../strategy/strategy.types';
import { DAY_MS, passwordExpiresAt } from '../../user-account/password-expiry';
import { DirectoryUser, UserDirectory } from '../../user-account/user-directory';
import { reasonOf } from '../notification.errors';
import { NotificationService } from '../notification.service';
import { NotificationKind, PasswordExpiryPayload } from '../notification.types';
import { ReminderRepository } from './reminder.repository';

const PAGE = 500;

/**
 * expireNotifyDays: once a day (and once shortly after start) every
 * enabled user whose password expires within expireNotifyDays days is reminded
 * through the site and, when the user has a mailbox, by e-mail. A row keyed by
 * (user, expiry time) makes it once per expiry period, and in a cluster only
 * the instance whose insert of that key succeeds sends. passwordExpireDays = 0
 * (never expires) or expireNotifyDays = 0 sends nothing.
 */
@Injectable()
export class PasswordExpiryReminderService implements OnModuleDestroy {
  private readonly logger = new Logger('Notification');
  // No cluster-wide turn: the (user, expiry time) key already keeps each reminder to one instance.
  private readonly job = new DailyJob<number>({ idle: 0, overlap: 'share' });

  constructor(
    private readonly strategy: StrategyService,
    private readonly users: UserDirectory,
    private readonly reminders: ReminderRepository,
    private readonly notifications: NotificationService,
    private readonly clock: Clock,
  ) {}

  @Cron(CronExpression.EVERY_DAY_AT_9AM, { name: 'password-expiry-reminder' })
  daily(): void {
    void this.runLogged();
  }

  @Timeout('password-expiry-reminder-on-start', 3_000)
  onStart(): void {
    void this.runLogged();
  }

  async onModuleDestroy() {
    // Timers are cleared only after this hook: a tick in between must not start a sweep on a closing database.
    await this.job.stop();
  }

  /** One sweep; resolves to the number of users reminded by this call. Overlapping calls share one sweep. */
  run(): Promise<number> {
    return this.job.run(() => this.sweep());
  }

  private async runLogged(): Promise<void> {
    try {
      const reminded = await this.run();
      if (reminded) this.logger.log(`password expiry: reminded ${reminded} user(s)`);
    } catch (err) {
      this.logger.warn(`password expiry reminder failed: ${reasonOf(err)}`);
    }
  }

  private async sweep(): Promise<number> {
    const { passwordExpireDays: days, expireNotifyDays: notifyDays } = await this.strategy.userStrategy();
    if (days <= 0 || notifyDays <= 0) return 0;
    const now = this.clock.nowMs();
    // Expiry = base + days lies in (now, now + notifyDays] exactly when base lies in (from, until].
    const from = new Date(now - days * DAY_MS);
    const until = new Date(now - days * DAY_MS + notifyDays * DAY_MS);
    let reminded = 0;
    let afterId = '';
    for (;;) {
      const batch = await this.users.enabledWithPasswordSetIn(from, until, afterId, PAGE);
      for (const user of batch) {
        if (await this.remind(user, days, now)) reminded += 1;
      }
      if (batch.length < PAGE) break;
      afterId = batch[batch.length - 1].id;
    }
    if (reminded) this.notifications.kick();
    return reminded;
  }

  /** True when this call reminded the user; false when the period was already reminded (here or elsewhere). */
  private async remind(user: DirectoryUser, days: number, now: number): Promise<boolean> {
    const expireTime = passwordExpiresAt(user, days)!;
    // The usual case, checked without a transaction (on SQLite a rolled-back transaction
    // would take concurrent writes on the same connection with it).
    if (await this.reminders.wasReminded(user.id, expireTime)) return false;
    const channels: NotifyChannel[] = user.email ? ['site', 'email'] : ['site'];
    const payload: PasswordExpiryPayload = {
      account: user.username,
      expireTime: expireTime.toISOString(),
      days: Math.max(1, Math.ceil((expireTime.getTime() - now) / DAY_MS)),
    };
    // False when another instance recorded the same period first: it sends, this one does not.
    return this.reminders.recordOnce({ userId: user.id, expireTime, createTime: this.clock.now() }, (tx) =>
      this.notifications.enqueue(tx, user.id, NotificationKind.PASSWORD_EXPIRY, channels, payload),
    );
  }
}
