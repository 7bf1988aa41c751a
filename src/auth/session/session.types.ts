/** Contract §6: the session stored at AUTH_TOKEN:{sha256hex(token)} (spec 2.5 temp / kickout). */
export interface Session {
  userId: string;
  temp: 0 | 1;
  kickout: 0 | 1;
  ip: string;
  /** epoch ms */
  loginTime: number;
  /** epoch ms */
  expireAt: number;
  /** Not in the contract's minimum; kept for the online-session list. */
  browser?: string | null;
  os?: string | null;
  renewedAt?: number | null;
}

/** What the token guard attaches to an authenticated request. */
export interface AuthContext {
  token: string;
  tokenHash: string;
  session: Session;
}

declare module 'fastify' {
  interface FastifyRequest {
    auth?: AuthContext;
  }
}
