import { Injectable } from '@nestjs/common';

import { AccessDenied } from '../common/app.exception';
import type { Actor } from '../common/auth-context';
import { codesBeyond } from './grants';
import { RoleService } from './role.service';

/** A user an administrator acts on: its id and user name (for the refusal's audit row). */
export interface TargetUser {
  id: string;
  username: string;
}

/**
 * Acting on an account needs all of its codes: the one check every administrator
 * operation on another user runs (lock, unlock, disable, enable, reset, update, delete, MFA reset,
 * kick-out, and each user of a bulk `{ ids }` request) before it changes anything. Without it a
 * narrow permission such as `sys:user:unlock` would reach the accounts above its holder: restarting
 * a `*` holder's failure count after every few guesses, or stripping its second factor.
 */
@Injectable()
export class TargetAccess {
  constructor(private readonly roles: RoleService) {}

  /**
   * FORBIDDEN (AccessDenied, naming the codes missing and the first user refused) unless the actor
   * holds every code of every target; `*` covers all. All or nothing: a bulk request is refused
   * whole when any one of its users is out of reach.
   */
  async assertMayActOn(actor: Actor, targets: readonly TargetUser[]): Promise<void> {
    if (!targets.length) return;
    const codes = await this.roles.permissionsOfEach(targets.map((t) => t.id));
    const refused = targets.find((t) => codesBeyond(actor.codes, codes.get(t.id) ?? []).length);
    if (!refused) return;
    const missing = new Set(targets.flatMap((t) => codesBeyond(actor.codes, codes.get(t.id) ?? [])));
    throw new AccessDenied([...missing].sort(), { id: refused.id, name: refused.username });
  }
}
