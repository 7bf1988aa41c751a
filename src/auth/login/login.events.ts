import { bilingual } from '../../common/texts';

/** Login step 10: login from none of the latest 3 successful IPs. */
export class UnusualIpEvent {
  static readonly NAME = 'auth.unusual-ip';
  readonly hint = bilingual('notification.unusualIpHint');
  constructor(
    readonly userId: string,
    readonly account: string,
    readonly ip: string,
    readonly time: Date,
  ) {}
}

/** A token was stored (lps_sessions_issued_total{temp}). */
export class SessionIssuedEvent {
  static readonly NAME = 'auth.session-issued';
  constructor(readonly temp: boolean) {}
}

/**
 * A password login (POST /sys/login) answered, whatever the outcome, after this many seconds
 * (lps_login_duration_seconds). Carries no account: nothing of it may become a label.
 */
export class LoginAnsweredEvent {
  static readonly NAME = 'auth.login-answered';
  constructor(readonly seconds: number) {}
}

/**
 * The rate of failed logins across the service crossed attackFailuresPerMinute (`started`), or
 * has stayed below it for ATTACK_CALM_MS (ended): announced once per edge across instances.
 */
export class LoginAttackEvent {
  static readonly NAME = 'auth.login-attack';
  constructor(
    readonly started: boolean,
    readonly time: Date,
    /** attackFailuresPerMinute at the time. */
    readonly threshold: number,
  ) {}
}
