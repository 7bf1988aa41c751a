import type { LoginStatus, LoginTypes } from './login-log.entity';

/**
 * One login attempt was logged (lps_login_attempts_total{status,login_type}).
 * Every way in and every refusal writes exactly one record, so this is the one place attempts are
 * counted. Only the two low-cardinality fields travel: no account, user or IP.
 */
export class LoginAttemptLoggedEvent {
  static readonly NAME = 'login-log.attempt-logged';
  constructor(
    readonly status: LoginStatus,
    readonly loginType: LoginTypes,
  ) {}
}
