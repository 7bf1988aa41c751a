import { randomUUID } from 'node:crypto';
import { isIP } from 'node:net';

import { Injectable } from '@nestjs/common';
import { EventEmitter2, OnEvent } from '@nestjs/event-emitter';

import { actedBy, AuditLogService, changedFields, SYSTEM_ACTOR } from '../audit/audit-log.service';
import { AppException, type FieldProblem, fieldProblem, fieldsFailed, validationFailed } from '../common/app.exception';
import type { Actor } from '../common/auth-context';
import { Clock } from '../common/clock';
import { ErrorCode } from '../common/error-code';
import { AppConfig } from '../config/app-config';
import { KeyedMutex } from '../store/keyed-mutex';
import { Keys } from '../store/keys';
import { SysPropsChangedEvent } from '../strategy/strategy.types';
import { RoleService } from '../user-account/role.service';
import { UserLookup } from '../user-account/user-lookup.service';
import { type AccessRule, CompiledRule, decide, type Decision, refusingRules, wallTime } from './access-decision';
import { AccessRuleEntity } from './access-rule.entity';
import { AccessRuleRepository } from './access-rule.repository';
import { normalisedInput, ruleInputProblems } from './access-rule-input';
import { CheckAccessDto, SaveAccessRuleDto } from './dto/access-rule.dto';

/** The group SYS_PROPS_CHANGED names when the rules change (the table's name). */
export const ACCESS_RULES_GROUP = 'sys_access_rule';

/** A safety net behind SYS_PROPS_CHANGED: a missed message (or a command run without Redis) holds for at most this long. */
const CACHE_TTL_MS = 60_000;

export interface AccessRuleView extends AccessRule {
  userRefs: { id: string; username: string | null }[];
  createTime: Date;
  updateTime: Date;
}

export interface AccessCheck {
  allowed: boolean;
  reason: Decision['reason'];
  rule: Pick<AccessRule, 'id' | 'name' | 'action'> | null;
}

/**
 * The login access rules: kept in sys_access_rule, held by each instance in memory (every login
 * reads them) and dropped everywhere on a change through SYS_PROPS_CHANGED, as the strategies are.
 * Saves, deletes and admin:recover's lifting run one at a time on every instance, each checked
 * against the whole set it leaves (the self-lockout guard).
 */
@Injectable()
export class AccessRuleService {
  private cached: { rules: CompiledRule[]; loadedAt: number } | null = null;
  /** Counts the changes, so that a read begun before a change is not kept after it. */
  private generation = 0;

  constructor(
    private readonly rules: AccessRuleRepository,
    private readonly accounts: UserLookup,
    private readonly roles: RoleService,
    private readonly audit: AuditLogService,
    private readonly mutex: KeyedMutex,
    private readonly events: EventEmitter2,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  /** Every rule as stored now (not the cache: an administrator sees what was just saved anywhere). */
  async list(): Promise<AccessRuleView[]> {
    const rows = await this.rules.all();
    const users = await this.accounts.byIds(rows.flatMap((r) => r.users));
    return rows.map((row) => ({
      ...toRule(row),
      userRefs: row.users.map((id) => ({ id, username: users.get(id)?.username ?? null })),
      createTime: row.createTime,
      updateTime: row.updateTime,
    }));
  }

  /**
   * Creates (no id) or replaces a rule. Every field is checked, all refusals answered at once and
   * nothing written; then, under the rules' mutex, the whole set as it would be must still let the
   * caller log in from the caller's IP now. Audited as accessRule.save (old → new per changed field).
   */
  async save(dto: SaveAccessRuleDto, actor: Actor): Promise<AccessRuleView> {
    const input = normalisedInput({
      name: dto.name,
      action: dto.action,
      ipRanges: dto.ipRanges ?? [],
      timeWindows: dto.timeWindows ?? [],
      roles: [...new Set(dto.roles ?? [])],
      users: [...new Set(dto.users ?? [])],
      enabled: dto.enabled ?? true,
    });
    const problems: FieldProblem[] = ruleInputProblems(input);
    const unknownRoles = await this.roles.unknownCodes(input.roles);
    if (unknownRoles.length) {
      problems.push(fieldProblem('validation.unknownRoles', 'roles', { roles: unknownRoles.join(',') }));
    }
    const known = await this.accounts.byIds(input.users);
    const unknownUsers = input.users.filter((id) => !known.has(id));
    if (unknownUsers.length) {
      problems.push(fieldProblem('validation.unknownUsers', 'users', { users: unknownUsers.join(',') }));
    }
    if (problems.length) throw fieldsFailed(problems);

    return this.mutex.run(Keys.accessRuleMutex, async () => {
      const all = await this.rules.all();
      const current = dto.id === undefined ? null : all.find((r) => r.id === dto.id);
      if (current === undefined) throw new AppException(ErrorCode.NOT_FOUND);
      const now = this.clock.now();
      const row: AccessRuleEntity = {
        ...input,
        id: current?.id ?? randomUUID(),
        createTime: current?.createTime ?? now,
        updateTime: now,
      };
      await this.assertCallerKeepsAccess([...all.filter((r) => r.id !== row.id), row], actor, 'body');
      await this.rules.save(row);
      await this.changed();
      await this.audit.recordDone('accessRule.save', async () => ({
        ...actedBy(actor),
        targetId: row.id,
        targetName: row.name,
        detail: { ...changedFields(current ? auditedFields(toRule(current)) : null, auditedFields(toRule(row))) },
      }));
      return {
        ...toRule(row),
        userRefs: row.users.map((id) => ({ id, username: known.get(id)?.username ?? null })),
        createTime: row.createTime,
        updateTime: row.updateTime,
      };
    });
  }

  /** Deletes a rule; an allow rule only when the caller could still log in without it. Audited as accessRule.delete. */
  async delete(id: string, actor: Actor): Promise<void> {
    await this.mutex.run(Keys.accessRuleMutex, async () => {
      const all = await this.rules.all();
      const rule = all.find((r) => r.id === id);
      if (!rule) throw new AppException(ErrorCode.NOT_FOUND);
      // Removing a deny only lets more in; removing an allow may leave others that do not match the caller.
      if (rule.action === 'allow') {
        await this.assertCallerKeepsAccess(
          all.filter((r) => r.id !== id),
          actor,
          'id',
        );
      }
      await this.rules.delete(rule.id);
      await this.changed();
      await this.audit.recordDone('accessRule.delete', async () => ({
        ...actedBy(actor),
        targetId: rule.id,
        targetName: rule.name,
        detail: auditedFields(toRule(rule)),
      }));
    });
  }

  /**
   * What the login of `userId` from `ip` at `time` (default now) would meet, by the very rules
   * and evaluation the login uses on this instance.
   */
  async check(dto: CheckAccessDto): Promise<AccessCheck> {
    const problems: FieldProblem[] = [];
    const user = (await this.accounts.byIds([dto.userId])).get(dto.userId);
    if (!user) problems.push(fieldProblem('validation.unknownUser', 'userId'));
    if (isIP(dto.ip) === 0) problems.push(fieldProblem('validation.ipAddress', 'ip'));
    if (problems.length) throw fieldsFailed(problems);
    const decision = await this.decide(
      user!.id,
      dto.ip.toLowerCase(),
      dto.time ? new Date(dto.time) : this.clock.now(),
    );
    const rule = decision.rule && { id: decision.rule.id, name: decision.rule.name, action: decision.rule.action };
    return { allowed: decision.allowed, reason: decision.reason, rule };
  }

  /** The rules' answer for a login of `userId` from `ip` at `at` (the login step's and check's one evaluation). */
  async decide(userId: string, ip: string, at: Date): Promise<Decision> {
    const rules = await this.active();
    if (!rules.length) return { allowed: true, reason: 'none', rule: null };
    return decide(rules, await this.subject(userId, rules), ip, wallTime(at, this.config.DISPLAY_TIMEZONE));
  }

  /**
   * admin:recover: disables every enabled rule that could refuse the user somewhere at some time
   * (refusingRules), audited one by one as accessRule.save by system; answers the rules disabled.
   */
  async liftFor(userId: string): Promise<AccessRule[]> {
    return this.mutex.run(Keys.accessRuleMutex, async () => {
      const all = (await this.rules.all()).map((row) => new CompiledRule(toRule(row)));
      const lifted = refusingRules(all, await this.subject(userId, all)).map((r) => r.rule);
      if (!lifted.length) return [];
      await this.rules.disable(
        lifted.map((r) => r.id),
        this.clock.now(),
      );
      await this.changed();
      for (const rule of lifted) {
        await this.audit.recordDone('accessRule.save', {
          ...SYSTEM_ACTOR,
          targetId: rule.id,
          targetName: rule.name,
          detail: { ...changedFields({ enabled: true }, { enabled: false }), reason: 'admin:recover', userId },
        });
      }
      return lifted;
    });
  }

  /** A save on this instance or (remote) another: the next login reads the rules again. */
  @OnEvent(SysPropsChangedEvent.NAME)
  onChanged(event: SysPropsChangedEvent): void {
    if (event.group !== ACCESS_RULES_GROUP) return;
    this.generation += 1;
    this.cached = null;
  }

  /** Announces a change: this instance's cache at once (awaited), the others' through StrategyService. */
  private async changed(): Promise<void> {
    await this.events.emitAsync(SysPropsChangedEvent.NAME, new SysPropsChangedEvent(ACCESS_RULES_GROUP));
  }

  /** The enabled rules, compiled, from this instance's memory. */
  private async active(): Promise<CompiledRule[]> {
    const now = this.clock.now().getTime();
    const held = this.cached;
    if (held && now >= held.loadedAt && now - held.loadedAt < CACHE_TTL_MS) return held.rules;
    const generation = this.generation;
    const rules = (await this.rules.all()).filter((r) => r.enabled).map((row) => new CompiledRule(toRule(row)));
    if (generation === this.generation) this.cached = { rules, loadedAt: now };
    return rules;
  }

  /** The user and, when a rule names roles, the roles it holds (one read, only then). */
  private async subject(userId: string, rules: CompiledRule[]) {
    const needsRoles = rules.some((r) => r.rule.roles.length > 0);
    const roles = needsRoles ? ((await this.roles.rolesOf([userId])).get(userId) ?? []) : [];
    return { userId, roles };
  }

  /** VALIDATION_FAILED (naming `field`) when `rules` would refuse the caller's own login from its IP now. */
  private async assertCallerKeepsAccess(rows: AccessRuleEntity[], actor: Actor, field: string): Promise<void> {
    const compiled = rows.filter((r) => r.enabled).map((row) => new CompiledRule(toRule(row)));
    const at = wallTime(this.clock.now(), this.config.DISPLAY_TIMEZONE);
    const decision = decide(compiled, await this.subject(actor.id, compiled), actor.ip, at);
    if (!decision.allowed) throw validationFailed('validation.locksOutCaller', field, { ip: actor.ip });
  }
}

function toRule(row: AccessRuleEntity): AccessRule {
  return {
    id: row.id,
    name: row.name,
    action: row.action,
    ipRanges: row.ipRanges,
    timeWindows: row.timeWindows,
    roles: row.roles,
    users: row.users,
    enabled: !!row.enabled,
  };
}

/** The fields an audit row shows old → new. */
function auditedFields(rule: AccessRule): Record<string, unknown> {
  const { id: _id, ...fields } = rule;
  return fields;
}
