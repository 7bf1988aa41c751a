/** Key names (REDIS_KEY_PREFIX is added by the Redis store). */
export const Keys = {
  token: (tokenHash: string) => `AUTH_TOKEN:${tokenHash}`,
  perms: (tokenHash: string) => `AUTH_PERMS:${tokenHash}`,
  userTokens: (userId: string) => `AUTH_USER_TOKENS:${userId}`,
  /** Users that may have live sessions: the online list walks these, never the token key space. */
  onlineUsers: 'AUTH_ONLINE_USERS',
  qrcode: (code: string) => `AUTH_QRCODE:${code}`,
  /** The session (token hash) and password a code was generated under, same TTL. */
  qrcodeOrigin: (code: string) => `AUTH_QRCODE_ORIGIN:${code}`,
  /** A password login waiting for its second factor, by the SHA-256 of the mfaToken. */
  mfaToken: (tokenHash: string) => `AUTH_MFA:${tokenHash}`,
  /** A TOTP secret set up but not enabled yet. */
  mfaSetup: (userId: string) => `MFA_SETUP:${userId}`,
  captcha: (imgId: string) => `CAPTCHA:${imgId}`,
  /** A WebAuthn challenge waiting for its one answer (registration, login or second step), by the SHA-256 of its handle. */
  passkeyChallenge: (handleHash: string) => `PASSKEY_CHALLENGE:${handleHash}`,
  /** The one live one-time code of a user for a purpose (login, reset, mfa): its keyed hash, channel and wrong tries. */
  otpCode: (purpose: string, userId: string) => `OTP_CODE:${purpose}:${userId}`,
  /** Sends counted in a fixed window (`minute` or `day`) per account as typed or per recipient, by the SHA-256 of either. */
  otpSends: (scope: 'account' | 'recipient', window: 'minute' | 'day', idHash: string) =>
    `OTP_SENDS:${scope}:${window}:${idHash}`,
  /** A one-time ticket of GET /sys/message/stream, by the SHA-256 of the ticket. */
  streamTicket: (ticketHash: string) => `STREAM_TICKET:${ticketHash}`,
  /** Ids of the user's open message streams, on every instance (each alive while its STREAM_SLOT is). */
  streamSlots: (userId: string) => `STREAM_SLOTS:${userId}`,
  /** One open message stream: its age and session, or `evicted` once a newer one pushed it out; refreshed by its heartbeat. */
  streamSlot: (slotId: string) => `STREAM_SLOT:${slotId}`,
  /** Opens of one user's message streams, counted one at a time. */
  streamSlotsMutex: (userId: string) => `STREAM_SLOTS_MUTEX:${userId}`,
  /**
   * One user's login tail and every change to what the user's sessions hold (lock, disable, reset,
   * delete, second factor, permission codes, profile), one at a time. Taken inside ROLE_SAVE_MUTEX
   * and SUPERADMIN_GUARD_MUTEX, never around them.
   */
  loginMutex: (userId: string) => `AUTH_LOGIN_MUTEX:${userId}`,
  /** Ids of the account's password compares in flight, each alive while its own key is. */
  loginSlots: (userId: string) => `AUTH_LOGIN_SLOTS:${userId}`,
  /** One compare in flight: its lease, renewed while the compare runs. */
  loginSlot: (userId: string, slotId: string) => `AUTH_LOGIN_SLOT:${userId}:${slotId}`,
  /** The one own password change of a user that runs (renewed lease); others are refused, not queued. */
  ownPasswordChange: (userId: string) => `OWN_PASSWORD_CHANGE:${userId}`,
  /** Own password changes of a user evaluated in the current hour (fixed window, as THROTTLE:). */
  ownPasswordChanges: (userId: string) => `OWN_PASSWORD_CHANGES:${userId}`,
  /** Saves of one setting group, whose fields are checked against each other, one at a time. */
  strategyMutex: (group: string) => `STRATEGY_SAVE_MUTEX:${group}`,
  /**
   * Role saves one at a time: the grant check reads the role it overwrites, and case variants of a
   * code are refused. User updates and own profile changes take it too (UserAdminService).
   */
  roleSaveMutex: 'ROLE_SAVE_MUTEX',
  /** Access rule saves, deletes and admin:recover's lifting one at a time: each checks the whole set it leaves. */
  accessRuleMutex: 'ACCESS_RULE_SAVE_MUTEX',
  /** Check and change of who may still administer the service (self-protection), one at a time. */
  superAdminGuardMutex: 'SUPERADMIN_GUARD_MUTEX',
  /** The log retention job, held by the one instance running it (renewed lease). */
  logRetentionMutex: 'LOG_RETENTION_MUTEX',
  /** Taken by the instance whose daily tick runs the job that day (UTC date). */
  logRetentionDay: (day: string) => `LOG_RETENTION_DAY:${day}`,
  /** The sealing of the login and audit logs (and retention's deletions from them), one instance at a time. */
  logSealMutex: 'LOG_SEAL_MUTEX',
  /** dormantDays: the daily sweep, on one instance at a time. */
  dormantSweepMutex: 'DORMANT_SWEEP_MUTEX',
  /** The one access.denied audit row of a session, path and minute (epoch minute). */
  accessDeniedAudited: (tokenHash: string, path: string, minute: number) =>
    `AUDIT_DENIED:${tokenHash}:${minute}:${path}`,
  /** Taken by the first wrong-password notice of an account in one window (LOGIN_NOTICE_WINDOW_MINUTES; window index). */
  loginNoticeWindow: (userId: string, index: number) => `LOGIN_NOTICE_WINDOW:${userId}:${index}`,
  /** Failed logins across the service in one minute (epoch minute): the rate of captchaUnderAttack. */
  loginFailures: (minute: number) => `LOGIN_FAILURES:${minute}`,
  /** The time (epoch ms) of the latest failed login counted while the rate was at its threshold. */
  loginAttackLastAbove: 'LOGIN_ATTACK_LAST_ABOVE',
  /** The attack under way: when it started (epoch ms); taken by the instance that announces the start, deleted by the one that announces the end. */
  loginAttack: 'LOGIN_ATTACK',
  propsChannel: 'SYS_PROPS_CHANGED',
  /** Rewritten (a random value) after every API key create and revoke; each instance compares it every second. */
  apiKeysStamp: 'API_KEYS_STAMP',
  /** A revoked API key's id, to every instance at once (the stamp is the net under a lost message). */
  apiKeyRevokedChannel: 'API_KEY_REVOKED',
  /** Rewritten (a random value) after every webhook save and delete; each instance compares it at most once a second. */
  webhooksStamp: 'WEBHOOKS_STAMP',
} as const;
