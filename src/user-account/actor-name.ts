import { Repository } from 'typeorm';
import type { Actor } from '../common/auth-context';
import { UserEntity } from './user.entity';

/**
 * The actor with a user name for its audit row: the session's, or, for a session issued before
 * sessions carried the user name, the account's (user names do not change).
 */
export async function named(actor: Actor, users: Repository<UserEntity>): Promise<Actor> {
  if (actor.name !== null) return actor;
  const user = await users.findOne({ where: { id: actor.id } });
  return { ...actor, name: user?.username ?? null };
}
