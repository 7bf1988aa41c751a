import { CallHandler, ExecutionContext, Injectable, Logger, NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { concatMap, from, Observable, switchMap } from 'rxjs';
import { SessionService } from '../session/session.service';
import { clientIp } from '../common/client-info';
import { StrategyService } from '../strategy/strategy.service';
import { StrategyGroup } from '../strategy/strategy.types';
import { RoleEntity } from '../user-account/role.entity';
import { RoleService } from '../user-account/role.service';
import { UserAccountService } from '../user-account/user-account.service';
import { AuditLogService } from './audit-log.service';
import { AuditAction, AUDITED } from './audited.decorator';

/** What must be read before the action runs: the settings or role it overwrites, the session it ends. */
interface Before {
  settings?: Record<string, unknown>;
  sessionUserId?: string;
  /** role.save: the role's permission codes before, null when the save creates it. */
  rolePermissions?: string[] | null;
}

/**
 * Writes one sys_audit_log row for every successful call of a handler marked @Audited: the
 * administrator (id and user name), the time (Clock), the IP, the action, its target and, for
 * settings and roles, the old and new values. Refused calls (validation, permission, unknown id,
 * self-protection) change nothing and are not recorded. Nothing from the response is recorded but
 * the id of a created user, so a generated password never reaches the audit log.
 */
@Injectable()
export class AuditInterceptor implements NestInterceptor {
  private readonly logger = new Logger('Audit');

  constructor(
    private readonly reflector: Reflector,
    private readonly audit: AuditLogService,
    private readonly strategy: StrategyService,
    private readonly sessions: SessionService,
    private readonly accounts: UserAccountService,
    private readonly roles: RoleService,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const action = this.reflector.get<AuditAction | undefined>(AUDITED, context.getHandler());
    if (!action) return next.handle();
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    return from(this.before(action, request)).pipe(
      switchMap((before) => next.handle().pipe(
        concatMap(async (result) => {
          await this.record(action, request, before, result);
          return result;
        }),
      )),
    );
  }

  private async before(action: AuditAction, request: FastifyRequest): Promise<Before> {
    const group = groupOf(action);
    if (group) return { settings: { ...(await this.settings(group)) } };
    if (action === 'role.save') {
      const code = bodyOf(request).code;
      return { rolePermissions: typeof code === 'string' ? (await this.role(code))?.permissions ?? null : null };
    }
    if (action === 'online.kickout') {
      const tokenId = bodyOf(request).tokenId;
      const session = typeof tokenId === 'string' ? await this.sessions.byTokenId(tokenId) : null;
      return { sessionUserId: session?.userId };
    }
    return {};
  }

  private async record(action: AuditAction, request: FastifyRequest, before: Before, result: unknown): Promise<void> {
    try {
      const actorId = request.auth!.session.userId;
      const body = bodyOf(request);
      let targetId: string | null = null;
      let targetName: string | null = null;
      let detail: Record<string, unknown> | null = null;
      let userTarget = false;
      const group = groupOf(action);
      if (group) {
        const after = await this.settings(group);
        const keys = Object.keys(body).filter((k) => k in after);
        targetId = group;
        detail = {
          old: Object.fromEntries(keys.map((k) => [k, before.settings?.[k]])),
          new: Object.fromEntries(keys.map((k) => [k, after[k]])),
        };
      } else if (action === 'role.save') {
        const role = typeof body.code === 'string' ? await this.role(body.code) : null;
        targetId = role?.code ?? null;
        targetName = role?.name ?? null;
        detail = { old: before.rolePermissions ?? null, new: role?.permissions ?? null };
      } else if (action === 'user.create') {
        // The new user's id is the only thing taken from the response (a generated password is there too).
        const id = (result as { id?: unknown } | null)?.id;
        targetId = typeof id === 'string' ? id : null;
        userTarget = true;
        if (targetId) detail = { roles: (await this.roles.rolesOf([targetId])).get(targetId) ?? [] };
      } else if (action === 'online.kickout') {
        targetId = before.sessionUserId ?? null;
        userTarget = true;
        detail = { tokenId: body.tokenId };
      } else {
        targetId = typeof body.id === 'string' ? body.id : null;
        userTarget = true;
      }
      const names = await this.accounts.byIds([actorId, ...(targetId && userTarget ? [targetId] : [])]);
      if (targetId && userTarget) {
        targetName = names.get(targetId)?.username ?? null;
        detail = { ...detail, username: targetName };
      }
      await this.audit.record({
        action, actorId, actorName: names.get(actorId)?.username ?? null, targetId, targetName, detail, ip: clientIp(request),
      });
    } catch (err) {
      // The action itself has happened; answering an error would make the client repeat it.
      this.logger.error(`could not write the audit record of ${action}: ${(err as Error)?.constructor?.name ?? typeof err}`);
    }
  }

  private async role(code: string): Promise<RoleEntity | null> {
    return (await this.roles.list()).find((r) => r.code === code) ?? null;
  }

  private async settings(group: StrategyGroup): Promise<Record<string, unknown>> {
    const value = group === StrategyGroup.LOGIN ? await this.strategy.loginStrategy() : await this.strategy.userStrategy();
    return value as unknown as Record<string, unknown>;
  }
}

function groupOf(action: AuditAction): StrategyGroup | null {
  if (action === 'strategy.login.save') return StrategyGroup.LOGIN;
  if (action === 'strategy.user.save') return StrategyGroup.USER;
  return null;
}

function bodyOf(request: FastifyRequest): Record<string, unknown> {
  const body = request.body;
  return body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
}
