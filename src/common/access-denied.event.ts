import type { RefusedTarget } from './app.exception';
import type { Actor } from './auth-context';

/**
 * A FORBIDDEN answer to a logged-in caller: emitted by the exception filter, written
 * to the audit log as `access.denied` by the audit module, which keeps at most one row per session
 * (or API key), path and minute.
 */
export class AccessDeniedEvent {
  static readonly NAME = 'access.denied';

  constructor(
    readonly actor: Actor,
    /** The session's id (the SHA-256 of its token), or `apikey:<id>` for an API key. */
    readonly tokenHash: string,
    /** The path refused, without its query. */
    readonly path: string,
    /** The permission codes the caller lacked; empty when the refusal was of another kind (self-protection). */
    readonly missing: readonly string[],
    readonly target?: RefusedTarget,
  ) {}
}
