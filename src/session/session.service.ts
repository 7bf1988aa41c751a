import { hash, randomBytes } from 'node:crypto';

import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';

import { AppException } from '../common/app.exception';
import type { AuthContext, Session, SessionProfile } from '../common/auth-context';
import { Clock } from '../common/clock';
import { ErrorCode } from '../common/error-code';
import { Keys } from '../store/keys';
import { KvStore } from '../store/kv.store';
import { StrategyService } from '../strategy/strategy.service';
import type { LoginStrategy } from '../strategy/strategy.types';
import { SessionClosedEvent, SessionEndedEvent, SessionEnder, SessionEndReason } from './session.events';

// crypto.hash: the one-shot digest, without a Hash object per request, is cheaper than
// createHash().update().digest() on every request that carries a token.
export const hashToken = (token: string) => hash('sha256', token, 'hex');

const HOUR_MS = 3_600_000;

/** How many tokens' last parse the session service keeps (a few hundred KiB at most). */
const PARSED_MAX = 1_000;

interface Parsed {
  raw: string;
  perms: string | null;
  session: Session;
  permissions: string[];
}

/** When the chain of logins a session belongs to began: a QR login carries its generator's. */
export const originOf = (session: Pick<Session, 'loginTime' | 'originTime'>): number =>
  session.originTime ?? session.loginTime;

/**
 * sessionMaxHours: the moment a session ends however often it was renewed (the login
 * that began its chain plus the limit); Infinity without a limit. Computed from the
 * strategy as it is now, so that a changed limit reaches live sessions at their next request (a
 * lower one ends those past it) and counts from the chain's first login for QR logins too.
 */
export function absoluteEndOf(
  session: Pick<Session, 'loginTime' | 'originTime'>,
  login: Pick<LoginStrategy, 'sessionMaxHours'>,
): number {
  return login.sessionMaxHours > 0 ? originOf(session) + login.sessionMaxHours * HOUR_MS : Infinity;
}

/**
 * Until when the session counts as freshly proven (epoch ms; 0 when never). The
 * enrolment token of mfaMode 2 was issued for a password just proven and counts for its whole life.
 * From the strategy as it is now, like the absolute end, so a changed reauthMinutes reaches live sessions.
 */
export function freshUntil(
  session: Pick<Session, 'provenAt' | 'temp' | 'mfaSetup'>,
  login: Pick<LoginStrategy, 'reauthMinutes'>,
): number {
  if (session.provenAt === null || session.provenAt === undefined) return 0;
  if (session.temp === 1 && session.mfaSetup === 1) return Infinity;
  return session.provenAt + login.reauthMinutes * 60_000;
}

/** When a session stops being live: its expiry, or sooner its absolute end. */
const endOf = (session: Session, login: Pick<LoginStrategy, 'sessionMaxHours'>) =>
  Math.min(session.expireAt, absoluteEndOf(session, login));

export interface IssueOptions {
  userId: string;
  /** Kept in the session for the audit rows of the user's actions (see Session.username). */
  username: string;
  /** Kept in the session for /sys/me/info (see Session.profile). */
  profile: SessionProfile;
  temp: boolean;
  ip: string;
  permissions: string[];
  browser?: string | null;
  os?: string | null;
  /** The login proved the password (a password login, not a QR code): a fresh proof now. */
  freshProof?: boolean;
  /** The temporary token for enrolment of mfaMode 2. */
  mfaSetup?: boolean;
  /** The login proved a second factor (Session.mfa). */
  mfa?: boolean;
  /**
   * The login that began the chain this session continues (Session.originTime): a QR login passes
   * its generating session's, so that the chain never outlives sessionMaxHours. Absent: this login.
   */
  originTime?: number;
}

/**
 * Tokens and sessions: opaque 256-bit tokens, only their SHA-256
 * stored; validity from the login strategy; renewal below half the validity;
 * kick-out marks; per-user token sets so a user's sessions are found without
 * scanning the key space.
 */
@Injectable()
export class SessionService {
  /**
   * Each recently seen token's stored session and permission codes as last read, with their parse
   *: most requests find both unchanged and skip the two JSON.parse calls. The store is
   * still read on every request; a parse is reused only for the very text the store returned, so a
   * kick-out, renewal, logout or role change (a different or missing text) is never hidden. The
   * parsed objects are frozen, as they are shared by the requests of that token.
   */
  private readonly parsed = new Map<string, Parsed>();

  constructor(
    private readonly store: KvStore,
    private readonly clock: Clock,
    private readonly strategy: StrategyService,
    private readonly events: EventEmitter2,
  ) {}

  async issue(options: IssueOptions): Promise<{ token: string; tokenHash: string; session: Session }> {
    const settings = await this.strategy.loginStrategy();
    const validityMs = (options.temp ? settings.tempSessionExpireMinutes : settings.sessionExpireMinutes) * 60_000;
    const now = this.clock.nowMs();
    // Never past the absolute end, temporary tokens included.
    const origin = options.originTime !== undefined && options.originTime < now ? options.originTime : undefined;
    const expireAt = Math.min(now + validityMs, absoluteEndOf({ loginTime: now, originTime: origin }, settings));
    // A chain already at its end gets a session that is dead at once, never one without expiry.
    const ttlMs = Math.max(1, expireAt - now);
    const token = randomBytes(32).toString('base64url');
    const tokenHash = hashToken(token);
    const session: Session = {
      userId: options.userId,
      username: options.username,
      profile: options.profile,
      temp: options.temp ? 1 : 0,
      kickout: 0,
      ip: options.ip,
      loginTime: now,
      ...(origin !== undefined && { originTime: origin }),
      expireAt,
      browser: options.browser ?? null,
      os: options.os ?? null,
      renewedAt: null,
      provenAt: options.freshProof ? now : null,
      ...(options.mfaSetup ? { mfaSetup: 1 as const } : {}),
      ...(options.mfa ? { mfa: 1 as const } : {}),
    };
    // One round trip (Redis runs them in this order): the indexes first and the token last, so a
    // token that exists is always found by endAll and the online list, and never without its permissions.
    await Promise.all([
      this.store.sAdd(Keys.userTokens(options.userId), tokenHash),
      this.store.sAdd(Keys.onlineUsers, options.userId),
      this.store.set(Keys.perms(tokenHash), JSON.stringify(options.permissions), ttlMs),
      this.store.set(Keys.token(tokenHash), JSON.stringify(session), ttlMs),
    ]);
    return { token, tokenHash, session };
  }

  /**
   * The live session of a token, or NOT_LOGGED_IN / KICKED_OUT (the latter once: the session is then
   * gone). `login` is the login strategy when the caller has read it already (one read per request).
   */
  resolve(token: string, login?: LoginStrategy): Promise<AuthContext> {
    return this.resolveHash(hashToken(token), login);
  }

  /** As resolve, for a session known by its id (the token's SHA-256), e.g. through a stream ticket. */
  async resolveHash(tokenHash: string, login?: LoginStrategy): Promise<AuthContext> {
    // One round trip: the session and its permission codes together.
    const [raw, perms] = await this.store.mget([Keys.token(tokenHash), Keys.perms(tokenHash)]);
    if (!raw) {
      this.parsed.delete(tokenHash);
      throw new AppException(ErrorCode.NOT_LOGGED_IN);
    }
    const { session, permissions } = this.parse(tokenHash, raw, perms);
    if (session.kickout === 1) {
      // Once, even under parallel requests: only the request that deletes the marked session
      // (atomically, against the value it read) answers KICKED_OUT; the others find it gone.
      const mine = await this.store.delIfEquals(Keys.token(tokenHash), raw);
      await this.end(tokenHash, session.userId);
      throw new AppException(mine ? ErrorCode.KICKED_OUT : ErrorCode.NOT_LOGGED_IN);
    }
    // The strategy is in process memory: the absolute end costs no store round trip.
    if (endOf(session, login ?? (await this.strategy.loginStrategy())) <= this.clock.nowMs()) {
      await this.end(tokenHash, session.userId);
      throw new AppException(ErrorCode.NOT_LOGGED_IN);
    }
    return { tokenHash, session, permissions };
  }

  private parse(tokenHash: string, raw: string, perms: string | null): Parsed {
    const last = this.parsed.get(tokenHash);
    if (last && last.raw === raw && last.perms === perms) return last;
    const session = JSON.parse(raw) as Session;
    if (session.profile) Object.freeze(session.profile);
    const parsed: Parsed = {
      raw,
      perms,
      session: Object.freeze(session),
      permissions: Object.freeze(perms ? (JSON.parse(perms) as string[]) : []) as string[],
    };
    if (!last && this.parsed.size >= PARSED_MAX) this.parsed.delete(this.parsed.keys().next().value as string);
    this.parsed.set(tokenHash, parsed);
    return parsed;
  }

  async permissions(tokenHash: string): Promise<string[]> {
    const raw = await this.store.get(Keys.perms(tokenHash));
    return raw ? (JSON.parse(raw) as string[]) : [];
  }

  /**
   * A normal token with less than 50% of its validity left is renewed to full, with its
   * permission cache — but never past its absolute end (sessionMaxHours).
   */
  async renewIfDue(tokenHash: string, session: Session, strategy?: LoginStrategy): Promise<Session> {
    if (session.temp === 1) return session;
    const login = strategy ?? (await this.strategy.loginStrategy());
    const validityMs = login.sessionExpireMinutes * 60_000;
    const now = this.clock.nowMs();
    if (session.expireAt - now >= validityMs / 2) return session;
    // Already renewed up to its absolute end: nothing to write, and no store read on each of the
    // requests still to come before that end.
    if (Math.min(now + validityMs, absoluteEndOf(session, login)) <= session.expireAt) return session;
    // Compare-and-set against the session as stored now, not as the guard read it: a kick-out or
    // logout that landed in between must win (a stale write would revive a kicked-out token), and a
    // session that is gone is never resurrected.
    const raw = await this.store.get(Keys.token(tokenHash));
    if (!raw) return session;
    const current = JSON.parse(raw) as Session;
    if (current.kickout === 1 || current.expireAt - now >= validityMs / 2) return current;
    const expireAt = Math.min(now + validityMs, absoluteEndOf(current, login));
    if (expireAt <= current.expireAt) return current;
    const renewed: Session = { ...current, expireAt, renewedAt: now };
    if (!(await this.store.replaceIfEquals(Keys.token(tokenHash), raw, JSON.stringify(renewed)))) return session;
    await this.store.expire(Keys.token(tokenHash), expireAt - now);
    await this.store.expire(Keys.perms(tokenHash), expireAt - now);
    return renewed;
  }

  /** With multiOnline = false every other token of the user is marked kickout = 1 (told as `replaced`). */
  async kickOutOthers(userId: string, exceptHash: string | null): Promise<void> {
    for (const { tokenHash, session } of await this.sessionsOf(userId)) {
      if (tokenHash === exceptHash || session.kickout === 1) continue;
      await this.store.replaceKeepTtl(Keys.token(tokenHash), JSON.stringify({ ...session, kickout: 1 }));
      this.closed(userId, tokenHash, true);
      this.told(session, 'replaced', null);
    }
  }

  /**
   * maxSessionsPerUser (with multiOnline = true): before a new session of the user is
   * stored, its oldest live sessions are marked kickout = 1 so that, with the new one, at most `max`
   * remain; their next request answers KICKED_OUT, as the kick-outs of multiOnline = false do. The caller holds
   * the account's login mutex (LoginService.complete), so parallel logins of one user, on any
   * instance, count one after the other. Sessions already kicked out do not count.
   */
  async kickOutOldest(userId: string, max: number): Promise<void> {
    const live = (await this.sessionsOf(userId))
      .filter(({ session }) => session.kickout !== 1)
      .sort((a, b) => a.session.loginTime - b.session.loginTime);
    for (const { tokenHash, session } of live.slice(0, Math.max(0, live.length - (max - 1)))) {
      await this.store.replaceKeepTtl(Keys.token(tokenHash), JSON.stringify({ ...session, kickout: 1 }));
      this.closed(userId, tokenHash, true);
      this.told(session, 'replaced', null);
    }
  }

  /** Lock, disable and reset end every session; an own password change ends the others. */
  async endAll(userId: string, exceptHash: string | null = null): Promise<void> {
    const hashes = await this.store.sMembers(Keys.userTokens(userId));
    for (const hash of hashes) {
      if (hash !== exceptHash) await this.end(hash, userId);
    }
  }

  /**
   * Live sessions of a user; hashes whose session expired are pruned from the set on the way.
   * Sessions past their absolute end are left out, unless `pastLimit`: such a session
   * ends at its next request, but should sessionMaxHours be raised first it lives on, so what must
   * reach every session that may still answer (a role or profile change) asks for them too.
   */
  async sessionsOf(userId: string, { pastLimit = false } = {}): Promise<{ tokenHash: string; session: Session }[]> {
    const hashes = await this.store.sMembers(Keys.userTokens(userId));
    if (!hashes.length) return [];
    const raws = await this.store.mget(hashes.map((h) => Keys.token(h)));
    const login = await this.strategy.loginStrategy();
    const now = this.clock.nowMs();
    const live: { tokenHash: string; session: Session }[] = [];
    const dead: string[] = [];
    raws.forEach((raw, i) => {
      const session = raw ? (JSON.parse(raw) as Session) : null;
      if (!session || session.expireAt <= now) dead.push(hashes[i]);
      else if (pastLimit || endOf(session, login) > now) live.push({ tokenHash: hashes[i], session });
    });
    if (dead.length) await this.store.sRem(Keys.userTokens(userId), ...dead);
    return live;
  }

  /** Every live session, newest first, found through the online-user index and the per-user sets. */
  async allSessions(): Promise<{ tokenHash: string; session: Session }[]> {
    const all: { tokenHash: string; session: Session }[] = [];
    const login = await this.strategy.loginStrategy();
    const now = this.clock.nowMs();
    for (const userId of await this.store.sMembers(Keys.onlineUsers)) {
      const stored = await this.sessionsOf(userId, { pastLimit: true });
      if (!stored.length) await this.store.sRem(Keys.onlineUsers, userId);
      all.push(...stored.filter(({ session }) => endOf(session, login) > now));
    }
    return all.sort((a, b) => b.session.loginTime - a.session.loginTime);
  }

  /** The live session behind a tokenId (the token's SHA-256, which cannot be used as a token). */
  async byTokenId(tokenId: string): Promise<Session | null> {
    if (!/^[0-9a-f]{64}$/.test(tokenId)) return null;
    const raw = await this.store.get(Keys.token(tokenId));
    const session = raw ? (JSON.parse(raw) as Session) : null;
    return session && endOf(session, await this.strategy.loginStrategy()) > this.clock.nowMs() ? session : null;
  }

  /**
   * Ends one session (logout, kick-out by id, expiry); its token then answers NOT_LOGGED_IN. With
   * `why` (a logout, a kick-out: someone ended it), the end is announced (SessionEndedEvent).
   */
  async end(
    tokenHash: string,
    userId: string,
    why?: { reason: SessionEndReason; session: Session; by?: SessionEnder },
  ): Promise<void> {
    this.parsed.delete(tokenHash);
    await this.store.del(Keys.token(tokenHash), Keys.perms(tokenHash));
    await this.store.sRem(Keys.userTokens(userId), tokenHash);
    this.closed(userId, tokenHash, false);
    if (why) this.told(why.session, why.reason, why.by ?? null);
  }

  private closed(userId: string, tokenHash: string, kickedOut: boolean): void {
    this.events.emit(SessionClosedEvent.NAME, new SessionClosedEvent(userId, tokenHash, kickedOut));
  }

  private told(session: Session, reason: SessionEndReason, by: SessionEnder | null): void {
    const { userId, username, ip, loginTime } = session;
    this.events.emit(
      SessionEndedEvent.NAME,
      new SessionEndedEvent({ userId, username, ip, loginTime }, reason, by, this.clock.now()),
    );
  }

  /**
   * Writes `fields` into the profile of every live session of the user (mfaEnabled
   * after enable, disable and reset), and `username` when given (a rename), so /sys/me/info keeps
   * reading the session only. Compare-and-set against the session as read: a kick-out or renewal
   * landing meanwhile is read again, never undone.
   */
  async updateProfile(userId: string, fields: Partial<SessionProfile>, username?: string): Promise<void> {
    for (const { tokenHash } of await this.sessionsOf(userId, { pastLimit: true })) {
      for (let tries = 0; tries < 5; tries += 1) {
        const raw = await this.store.get(Keys.token(tokenHash));
        if (!raw) break;
        const session = JSON.parse(raw) as Session;
        const updated: Session = {
          ...session,
          ...(username !== undefined && { username }),
          profile: { ...session.profile, ...fields },
        };
        if (await this.store.replaceIfEquals(Keys.token(tokenHash), raw, JSON.stringify(updated))) break;
      }
    }
  }

  /**
   * /sys/me/reauth: the session is freshly proven as of `at`, in the store, so it holds
   * on every instance. Compare-and-set against the session as read, as updateProfile does; false
   * when the session is gone or kicked out (it then answers as such at its next request).
   */
  async markProven(tokenHash: string, at: number): Promise<boolean> {
    for (let tries = 0; tries < 5; tries += 1) {
      const raw = await this.store.get(Keys.token(tokenHash));
      if (!raw) return false;
      const session = JSON.parse(raw) as Session;
      if (session.kickout === 1) return false;
      if (await this.store.replaceIfEquals(Keys.token(tokenHash), raw, JSON.stringify({ ...session, provenAt: at })))
        return true;
    }
    return false;
  }

  /** Replaces the cached permission codes of every live session of a user (after a role change). */
  async refreshPermissions(userId: string, permissions: string[]): Promise<void> {
    for (const { tokenHash } of await this.sessionsOf(userId, { pastLimit: true })) {
      await this.store.replaceKeepTtl(Keys.perms(tokenHash), JSON.stringify(permissions));
    }
  }
}
