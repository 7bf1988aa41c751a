import { bilingual } from '../../common/texts';

/** Spec 4.2 / 4.1 step 10: login from none of the latest 3 successful IPs. */
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

/** Spec 4.1 step 9: a token was stored (contract §10 lps_sessions_issued_total{temp}). */
export class SessionIssuedEvent {
  static readonly NAME = 'auth.session-issued';
  constructor(readonly temp: boolean) {}
}

/**
 * A password login (POST /sys/login) answered, whatever the outcome, after this many seconds
 * (contract §10 lps_login_duration_seconds). Carries no account: nothing of it may become a label.
 */
export class LoginAnsweredEvent {
  static readonly NAME = 'auth.login-answered';
  constructor(readonly seconds: number) {}
}
