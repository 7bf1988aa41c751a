import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';

import { Clock } from '../../common/clock';
import { Keys } from '../../store/keys';
import { KvStore } from '../../store/kv.store';
import { StrategyService } from '../../strategy/strategy.service';
import { LoginAttackEvent } from '../login/login.events';

/** How long the rate must stay below attackFailuresPerMinute before the captcha is asked no more. */
export const ATTACK_CALM_MS = 5 * 60_000;
/** How often each instance looks for the end of an attack when no login comes to look for it. */
const CHECK_EVERY_MS = 15_000;
/** Store keys outlive what they say by this much; the times they hold decide, not their TTL. */
const KEEP_MS = 24 * 3_600_000;
/** While under attack, the latest failure above the threshold is written at most this often per instance. */
const LAST_ABOVE_EVERY_MS = 5_000;

/**
 * Adaptive captcha (login strategy captchaUnderAttack): failed logins across the service are
 * counted per minute in the shared store (Redis across instances, memory when embedded), on the
 * injected clock. When a minute's count reaches attackFailuresPerMinute the service is under
 * attack, and stays so until ATTACK_CALM_MS have passed since the last failure counted at or over
 * the threshold. The start and the end are each announced once (LoginAttackEvent): the instance
 * that creates, or deletes, the LOGIN_ATTACK key announces. docs/security.md.
 */
@Injectable()
export class LoginAttackService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('LoginAttack');
  private timer?: NodeJS.Timeout;
  /** This instance's view, for the metric; refreshed by every check. */
  private underAttackSeen = false;
  private lastAboveWritten = 0;

  constructor(
    private readonly store: KvStore,
    private readonly clock: Clock,
    private readonly strategy: StrategyService,
    private readonly events: EventEmitter2,
  ) {}

  onApplicationBootstrap() {
    this.timer = setInterval(() => void this.check().catch(() => undefined), CHECK_EVERY_MS);
    this.timer.unref();
  }

  onApplicationShutdown() {
    clearInterval(this.timer);
  }

  /** Whether this instance last saw the service under attack (the lps_login_under_attack gauge). */
  get seen(): boolean {
    return this.underAttackSeen;
  }

  /** Counts one failed login; starts the attack when the minute's count reaches the threshold. */
  async recordFailure(): Promise<void> {
    const { captchaUnderAttack, attackFailuresPerMinute } = await this.strategy.loginStrategy();
    if (!captchaUnderAttack) return;
    const now = this.clock.nowMs();
    const { count } = await this.store.incrWithTtl(Keys.loginFailures(Math.floor(now / 60_000)), 2 * 60_000);
    if (count < attackFailuresPerMinute) return;
    if (now - this.lastAboveWritten >= LAST_ABOVE_EVERY_MS || !this.underAttackSeen) {
      this.lastAboveWritten = now;
      await this.store.set(Keys.loginAttackLastAbove, String(now), KEEP_MS);
    }
    if (await this.store.setIfAbsent(Keys.loginAttack, String(now), KEEP_MS)) {
      this.logger.warn(`failed logins reached ${attackFailuresPerMinute} a minute: every login now needs a captcha`);
      await this.announce(true, now, attackFailuresPerMinute);
    }
    this.underAttackSeen = true;
  }

  /** Whether every login needs a captcha now (captchaUnderAttack on and under attack). */
  async underAttack(): Promise<boolean> {
    const { captchaUnderAttack } = await this.strategy.loginStrategy();
    if (!captchaUnderAttack && !this.underAttackSeen) return false;
    return (await this.check()) && captchaUnderAttack;
  }

  /** Reads the shared state; announces the end when the calm has lasted long enough (or the strategy turned off). */
  async check(): Promise<boolean> {
    const { captchaUnderAttack, attackFailuresPerMinute } = await this.strategy.loginStrategy();
    const [started, lastAbove] = await this.store.mget([Keys.loginAttack, Keys.loginAttackLastAbove]);
    if (started === null) return (this.underAttackSeen = false);
    const now = this.clock.nowMs();
    if (captchaUnderAttack && now < Number(lastAbove ?? started) + ATTACK_CALM_MS) return (this.underAttackSeen = true);
    // The instance that deletes the key announces the end.
    if (await this.store.delIfEquals(Keys.loginAttack, started)) {
      this.logger.warn('failed logins stayed below the threshold: the captcha follows CAPTCHA_ENABLED again');
      await this.announce(false, now, attackFailuresPerMinute);
    }
    return (this.underAttackSeen = false);
  }

  /** The listeners (metrics, the site message) run before the login that crossed the edge answers. */
  private async announce(started: boolean, now: number, threshold: number) {
    await this.events
      .emitAsync(LoginAttackEvent.NAME, new LoginAttackEvent(started, new Date(now), threshold))
      .catch((err: unknown) => this.logger.warn(`login attack not announced: ${(err as Error)?.name}`));
  }
}
