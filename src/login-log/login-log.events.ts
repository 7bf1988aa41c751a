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

/**
 * One login-log row was written, with what it says: who (null for an account nobody holds), how,
 * from where and how it ended (never the password or code tried). Features that tell other systems
 * about logins (src/webhook) listen to this; the metrics keep to LoginAttemptLoggedEvent.
 */
export class LoginRecordedEvent {
  static readonly NAME = 'login-log.recorded';
  constructor(
    readonly userId: string | null,
    /** What the client typed to name the account. */
    readonly account: string,
    readonly loginType: LoginTypes,
    readonly status: LoginStatus,
    readonly ip: string,
    readonly browser: string | null,
    readonly os: string | null,
    /** The ErrorCode the client got; null for a success. */
    readonly failure: string | null,
    readonly time: Date,
  ) {}
}
