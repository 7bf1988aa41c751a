/** Contract §6 key names (REDIS_KEY_PREFIX is added by the Redis store). */
export const Keys = {
  token: (tokenHash: string) => `AUTH_TOKEN:${tokenHash}`,
  perms: (tokenHash: string) => `AUTH_PERMS:${tokenHash}`,
  userTokens: (userId: string) => `AUTH_USER_TOKENS:${userId}`,
  /** Users that may have live sessions: the online list walks these, never the token key space. */
  onlineUsers: 'AUTH_ONLINE_USERS',
  qrcode: (code: string) => `AUTH_QRCODE:${code}`,
  captcha: (imgId: string) => `CAPTCHA:${imgId}`,
  loginMutex: (userId: string) => `AUTH_LOGIN_MUTEX:${userId}`,
  /** Saves of one setting group, whose fields are checked against each other, one at a time. */
  strategyMutex: (group: string) => `STRATEGY_SAVE_MUTEX:${group}`,
  /** Check and change of who may still administer the service (contract §12 self-protection), one at a time. */
  superAdminGuardMutex: 'SUPERADMIN_GUARD_MUTEX',
  propsChannel: 'SYS_PROPS_CHANGED',
} as const;
