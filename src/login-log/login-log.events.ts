import type { LoginStatus, LoginTypes } from './login-log.entity';

/**
 * Spec 2.6: one login attempt was logged (contract §10 lps_login_attempts_total{status,login_type}).
 * Every way in and every refusal writes exactly one record, so this is the one place attempts are
 * counted. Only the two low-cardinality fields travel: no account, user or IP.
 */
export class LoginAttemptLoggedEvent {
  static readonly NAME = 'login-log.attempt-logged';
  constructor(readonly status: LoginStatus, readonly loginType: LoginTypes) {}
}
