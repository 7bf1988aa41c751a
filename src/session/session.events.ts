import type { Session } from '../common/auth-context';

/**
 * Why a session was ended by someone: its user logged out, it was kicked out (by an administrator,
 * or by its user from another session), or a newer login replaced it (one device only, or
 * maxSessionsPerUser). Ends that follow from an account change (lock, disable, reset, delete,
 * password change, second-factor reset) are told as that change; expiry is told by nobody.
 */
export type SessionEndReason = 'logout' | 'kickout' | 'replaced';

/** Who ended a session that its user did not end: the acting user (an administrator, or the user). */
export interface SessionEnder {
  id: string;
  name: string | null;
}

/** A session ended (or was marked to end at its next request) for one of SessionEndReason. */
export class SessionEndedEvent {
  static readonly NAME = 'session.ended';
  constructor(
    readonly session: Pick<Session, 'userId' | 'username' | 'ip' | 'loginTime'>,
    readonly reason: SessionEndReason,
    readonly by: SessionEnder | null,
    readonly time: Date,
  ) {}
}

/**
 * A session closed on this instance (ended, or marked to be kicked out): told in this process only,
 * so that what this instance holds open for the session (its message streams) ends at once rather
 * than at its next periodic check. Other instances find out by their own checks.
 */
export class SessionClosedEvent {
  static readonly NAME = 'session.closed';
  constructor(
    readonly userId: string,
    readonly tokenHash: string,
    readonly kickedOut: boolean,
  ) {}
}
