import type { Actor } from '../common/auth-context';
import type { UserRepository } from './user.repository';

/**
 * The actor with a user name for its audit row: the session's, or, for a session issued before
 * sessions carried the user name, the account's (user names do not change).
 */
export async function named(actor: Actor, users: Pick<UserRepository, 'byId'>): Promise<Actor> {
  if (actor.name !== null) return actor;
  const user = await users.byId(actor.id);
  return { ...actor, name: user?.username ?? null };
}
