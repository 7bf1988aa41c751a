import type { UserEntity } from './user.entity';

export const DAY_MS = 86_400_000;

/**
 * A password expires passwordExpireDays days after its last change, or after the
 * account's creation while it is still the initial one; 0 days means never (null).
 */
export function passwordExpiresAt(
  user: Pick<UserEntity, 'passwordUpdateTime' | 'createTime'>,
  passwordExpireDays: number,
): Date | null {
  if (passwordExpireDays <= 0) return null;
  return new Date((user.passwordUpdateTime ?? user.createTime).getTime() + passwordExpireDays * DAY_MS);
}
