import { Injectable } from '@nestjs/common';

import { Clock } from '../common/clock';
import { baselineGaps } from '../compliance/baseline';
import { AppConfig } from '../config/app-config';
import { LoginLogService } from '../login-log/login-log.service';
import { SessionService } from '../session/session.service';
import { StrategyService } from '../strategy/strategy.service';
import { USER_STATES } from '../user-account/dto/user.dto';
import { UserRepository } from '../user-account/user.repository';
import type { DashboardSummaryDto, LoginsSummaryDto } from './dto/summary.dto';

const DAYS = 30;
const TOP = 5;
const QUARTER_MS = 900_000;
const DAY_MS = 86_400_000;

/** The home page's figures, each block read only for a caller holding the code of its source. */
@Injectable()
export class DashboardService {
  private readonly local: Intl.DateTimeFormat;

  constructor(
    private readonly users: UserRepository,
    private readonly logins: LoginLogService,
    private readonly sessions: SessionService,
    private readonly strategy: StrategyService,
    private readonly clock: Clock,
    config: AppConfig,
  ) {
    this.local = new Intl.DateTimeFormat('en-CA', {
      timeZone: config.DISPLAY_TIMEZONE,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      hourCycle: 'h23',
    });
  }

  async summary(permissions: readonly string[]): Promise<DashboardSummaryDto> {
    const holds = (code: string) => permissions.includes('*') || permissions.includes(code);
    const now = new Date(this.clock.nowMs());
    const summary: DashboardSummaryDto = {};
    if (holds('sys:user:list')) {
      const { passwordExpireDays } = await this.strategy.userStrategy();
      summary.users = await this.users.countsByState(USER_STATES, now, passwordExpireDays);
      summary.passwords = { expiringIn7Days: await this.users.countExpiringWithin(now, passwordExpireDays, 7) };
    }
    if (holds('sys:loginLog:list')) summary.logins = await this.loginFigures(now);
    if (holds('sys:online:list')) summary.sessions = { online: (await this.sessions.allSessions()).length };
    const gaps = [
      ...(holds('sys:strategy:login:info') ? baselineGaps('login', await this.strategy.loginStrategy()) : []),
      ...(holds('sys:strategy:user:info') ? baselineGaps('user', await this.strategy.userStrategy()) : []),
    ];
    if (holds('sys:strategy:login:info') || holds('sys:strategy:user:info')) summary.baseline = gaps;
    return summary;
  }

  /**
   * The last 30 days and today's hours in DISPLAY_TIMEZONE, put together from the quarter hours the
   * database counted (a zone's hour starts on a quarter hour, whatever its offset).
   */
  private async loginFigures(now: Date): Promise<LoginsSummaryDto> {
    const today = this.partsOf(now.getTime());
    const [y, m, d] = today.date.split('-').map(Number);
    const dates = Array.from({ length: DAYS }, (_, i) =>
      new Date(Date.UTC(y, m - 1, d - (DAYS - 1 - i))).toISOString().slice(0, 10),
    );
    const byDay = new Map(dates.map((date) => [date, { date, success: 0, failure: 0 }]));
    const byHour = Array.from({ length: 24 }, (_, hour) => ({ hour, success: 0, failure: 0 }));
    // A day more than 30 days back, so that every local date of the 30 is whole.
    const since = new Date(now.getTime() - (DAYS + 1) * DAY_MS);
    for (const { quarter, success, count } of await this.logins.countsByQuarterHour(since)) {
      const at = this.partsOf(quarter * QUARTER_MS);
      const day = byDay.get(at.date);
      if (!day) continue;
      day[success ? 'success' : 'failure'] += count;
      if (at.date === today.date) byHour[at.hour][success ? 'success' : 'failure'] += count;
    }
    const todayCounts = byDay.get(today.date)!;
    const startOfToday = this.startOfToday(now);
    const [reasons, ips] = await Promise.all([
      this.logins.topFailures(startOfToday, 'reason', TOP),
      this.logins.topFailures(startOfToday, 'ip', TOP),
    ]);
    return {
      today: { success: todayCounts.success, failure: todayCounts.failure },
      byHour,
      byDay: [...byDay.values()],
      topFailureReasons: reasons.map((r) => ({ code: r.value, count: r.count })),
      topFailureIps: ips.map((r) => ({ ip: r.value, count: r.count })),
    };
  }

  /** The instant today began in DISPLAY_TIMEZONE: the first quarter hour back from now on today's date. */
  private startOfToday(now: Date): Date {
    const today = this.partsOf(now.getTime()).date;
    let at = Math.floor(now.getTime() / QUARTER_MS) * QUARTER_MS;
    while (this.partsOf(at - QUARTER_MS).date === today) at -= QUARTER_MS;
    return new Date(at);
  }

  private partsOf(ms: number): { date: string; hour: number } {
    const parts = Object.fromEntries(this.local.formatToParts(ms).map((p) => [p.type, p.value]));
    return { date: `${parts.year}-${parts.month}-${parts.day}`, hour: Number(parts.hour) };
  }
}
