import { SetMetadata } from '@nestjs/common';

/** The administrative actions that are audited; the prefix says what the target is. */
export type AuditAction =
  | 'strategy.login.save' | 'strategy.user.save'
  | 'user.create' | 'user.lock' | 'user.unlock' | 'user.disable' | 'user.enable' | 'user.resetPass'
  | 'role.save'
  | 'online.kickout';

export const AUDITED = 'audit:action';

/** Records a successful call of this handler in sys_audit_log (see AuditInterceptor). */
export const Audited = (action: AuditAction) => SetMetadata(AUDITED, action);
