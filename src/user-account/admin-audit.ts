import { actedBy, AuditAction, AuditChange, AuditLogService } from '../audit/audit-log.service';
import type { Actor } from '../common/auth-context';
import type { UserEntity } from './user.entity';

/** The lock fields of an audit row: as the account was read before, and as the action left them. */
export function lockChange(before: UserEntity, after: { locked: boolean; unlockTime: Date | null }): AuditChange {
  return { old: { locked: !!before.locked, unlockTime: before.unlockTime ?? null }, new: after };
}

/**
 * The audit row of an administrator's action on one user, once it has happened; none without an
 * actor (`by` a bare id is a call from no request). `change`: the fields it changed, old → new, so
 * the console can show them side by side.
 */
export async function auditAdminAction(
  audit: AuditLogService,
  action: AuditAction,
  by: Actor | string | undefined,
  target: UserEntity,
  change?: AuditChange,
): Promise<void> {
  if (by === undefined || typeof by === 'string') return;
  await audit.recordDone(action, async () => ({
    ...actedBy(by),
    targetId: target.id,
    targetName: target.username,
    detail: { username: target.username, ...change },
  }));
}
