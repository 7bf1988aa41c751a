/** What happened to a user's second factor. */
export type MfaChange = 'enabled' | 'disabled' | 'reset' | 'recoveryCodes' | 'passkeyAdded' | 'passkeyDeleted';

/**
 * A user's second factor changed: enabled or disabled by its user, new recovery codes, a passkey
 * added or deleted, or removed
 * by an administrator (`by` set). Never carries the secret or a code.
 */
export class MfaChangedEvent {
  static readonly NAME = 'mfa.changed';
  constructor(
    readonly userId: string,
    readonly username: string,
    readonly change: MfaChange,
    /** The request's client IP. */
    readonly ip: string,
    /** The administrator of a reset; null when the user acted. */
    readonly by: { id: string; name: string | null } | null,
    readonly time: Date,
  ) {}
}
