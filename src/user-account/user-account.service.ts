import { Injectable, OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { randomUUID } from 'node:crypto';
import { actedBy, AuditAction, AuditChange, AuditLogService, SYSTEM_ACTOR } from '../audit/audit-log.service';
import { AppException, FieldProblem, fieldProblem, fieldsFailed } from '../common/app.exception';
import type { Actor } from '../common/auth-context';
import { Clock } from '../common/clock';
import { isDeadlock, isUniqueViolation } from '../common/db-errors';
import { ErrorCode } from '../common/error-code';
import { Page } from '../common/paging.dto';
import { AppConfig } from '../config/app-config';
import { SessionService } from '../session/session.service';
import { StrategyService } from '../strategy/strategy.service';
import { LoginTypes } from '../login-log/login-log.entity';
import { LoginLogService } from '../login-log/login-log.service';
import { KeyedMutex } from '../store/keyed-mutex';
import { Keys } from '../store/keys';
import { AccountLockedEvent } from './account.events';
import { ListUsersDto, UpdateUserDto } from './dto/user.dto';
import { PasswordHasher } from './password-hasher';
import { passwordExpiresAt } from './password-expiry';
import { ALL_PERMISSIONS } from './grants';
import { failureWindowStart, lockedUntil, unlockDue } from './lock-policy';
import { checkPasswordComplexity, generatePassword } from './password-policy';
import { previousToKeep } from './password-screen';
import { RoleService } from './role.service';
import { Identifier, IdentifierKind, identifiersOf, LOGIN_TYPE_OF } from './user-identifier';
import { MFA_STATUS, MfaStatus } from './mfa-status';
import { SelfProtection } from './self-protection';
import { TargetAccess } from './target-access';
import { UserEntity } from './user.entity';
import { UserChange, UserRepository } from './user.repository';

export interface NewUser {
  username: string;
  name: string;
  mobile?: string | null;
  email?: string | null;
  /** Plain text; absent: generated and returned once. */
  password?: string;
  roles?: string[];
}

export interface UserView {
  id: string;
  username: string;
  name: string;
  mobile: string | null;
  email: string | null;
  locked: boolean;
  unlockTime: Date | null;
  disabled: boolean;
  passwordUpdateTime: Date | null;
  passwordExpireTime: Date | null;
  createTime: Date;
  roles: string[];
  /** Answered through MFA_STATUS; false without a second-factor module. */
  mfaEnabled: boolean;
  /** The failures the lock check counts now (its window's reset). */
  failureCount: number;
  /** The last successful login, any way in (sys_user.last_login_time); null when never. */
  lastLoginTime: Date | null;
}

/** The lock fields of an audit row: as the account was read before, and as the action left them. */
function lockChange(before: UserEntity, after: { locked: boolean; unlockTime: Date | null }): AuditChange {
  return { old: { locked: !!before.locked, unlockTime: before.unlockTime ?? null }, new: after };
}

@Injectable()
export class UserAccountService implements OnModuleInit {
  private mfaStatus: MfaStatus[] = [];

  constructor(
    private readonly users: UserRepository,
    private readonly roles: RoleService,
    private readonly hasher: PasswordHasher,
    private readonly strategy: StrategyService,
    private readonly sessions: SessionService,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    private readonly mutex: KeyedMutex,
    private readonly protection: SelfProtection,
    private readonly access: TargetAccess,
    private readonly audit: AuditLogService,
    private readonly events: EventEmitter2,
    private readonly logs: LoginLogService,
    private readonly modules: ModuleRef,
  ) {}

  onModuleInit() {
    this.mfaStatus = MFA_STATUS.collect(this.modules);
  }

  /**
   * User name, then mobile, then e-mail; the matching field is the log's login type.
   * Through sys_user_identifier, so user names and e-mails match whatever their case,
   * and the same way on every database. The id only (see UserRepository.findForLogin).
   */
  async findForLogin(account: string): Promise<{ userId: string; loginType: LoginTypes } | null> {
    const found = await this.users.findForLogin(account);
    return found && { userId: found.userId, loginType: LOGIN_TYPE_OF[found.kind] };
  }

  /**
   * The current row (lock and disable state may have changed since the caller read it). Callers that
   * act on a user go on with the row's own id, not the one given: MariaDB matches ids whatever their
   * case or trailing spaces, but the mutex, the session keys and the self check compare exact strings.
   */
  async get(id: string): Promise<UserEntity> {
    const user = await this.users.byId(id);
    if (!user) throw new AppException(ErrorCode.NOT_FOUND);
    return user;
  }

  async withPassword(id: string): Promise<UserEntity> {
    const user = await this.users.withPassword(id);
    if (!user) throw new AppException(ErrorCode.NOT_FOUND);
    return user;
  }

  /**
   * `held`: the permission codes of the caller, who may only give roles within them.
   * With an actor (an administrator's request), audited as user.create with the roles given; never
   * with the password. Without one (the first start's admin), not audited.
   */
  async create(input: NewUser, held: string[], actor?: Actor): Promise<{ id: string; password?: string }> {
    const rules = await this.strategy.passwordRules();
    const generated = input.password === undefined ? generatePassword(rules) : undefined;
    const plain = input.password ?? generated!;
    checkPasswordComplexity(plain, rules);
    const roleCodes = [...new Set(input.roles ?? [])];
    await this.roles.assertMayAssign(held, roleCodes);
    const identifiers = identifiersOf(input);
    await this.assertUnique(identifiers);
    const id = randomUUID();
    const hash = await this.hasher.hash(plain);
    const row = {
      id,
      username: input.username,
      name: input.name,
      mobile: input.mobile ?? null,
      email: input.email ?? null,
      password: hash,
      // A password set by an administrator is an initial password.
      passwordUpdateTime: null,
      createTime: this.clock.now(),
      locked: false,
      disabled: false,
    };
    for (let attempt = 1; ; attempt++) {
      try {
        // The identifiers' key refuses a value another user holds in any field,
        // atomically, also when parallel requests passed assertUnique together.
        await this.users.insertWithIdentifiers(row, identifiers, roleCodes);
        break;
      } catch (err) {
        // InnoDB may pick a waiting insert of the same key as a deadlock victim: try again, and a
        // value taken meanwhile is then a duplicate like any other.
        const retry = isDeadlock(err) && attempt < 3;
        if (!retry && !isUniqueViolation(err)) throw err;
        // The winner has committed by now: name the field it took.
        await this.assertUnique(identifiers);
        if (!retry) throw fieldsFailed([this.taken('username')]);
      }
    }
    if (actor) {
      await this.audit.recordDone('user.create', async () => ({
        ...actedBy(actor),
        targetId: id,
        targetName: input.username,
        detail: { roles: (await this.roles.rolesOf([id])).get(id) ?? [], username: input.username },
      }));
    }
    return generated ? { id, password: generated } : { id };
  }

  /**
   * A page of the users that are not deleted, narrowed by keyword and state, each
   * with its roles, second factor and the failure count the lock check would see now — the window
   * of lock-policy.ts, counted for the whole page in one grouped query.
   */
  async list(query: ListUsersDto): Promise<Page<UserView>> {
    const now = this.clock.now();
    const { passwordExpireDays } = await this.strategy.userStrategy();
    const state = query.state ? { state: query.state, now, passwordExpireDays } : undefined;
    const [rows, total] = await this.users.page({ keyword: query.keyword, state }, query.pageNum, query.pageSize);
    const ids = rows.map((u) => u.id);
    const roles = await this.roles.rolesOf(ids);
    const mfa = new Set((await Promise.all(this.mfaStatus.map((s) => s.enabledAmong(ids)))).flatMap((set) => [...set]));
    const { maxFailureInterval } = await this.strategy.loginStrategy();
    const failures = await this.logs.countFailuresSinceEach(rows.map((u) => ({
      userId: u.id, since: failureWindowStart(now, maxFailureInterval, u.failureResetTime),
    })));
    return {
      total,
      rows: rows.map((u) => ({
        ...this.view(u, roles.get(u.id) ?? [], passwordExpireDays),
        mfaEnabled: mfa.has(u.id),
        failureCount: failures.get(u.id) ?? 0,
      })),
    };
  }

  /**
   * /sys/user/update: name, mobile, e-mail and the role set, each only when given and
   * different. The caller may only edit a user whose codes it holds (an edit of an
   * account above the caller — its e-mail, which gets the security notices, or its roles — would act
   * beyond the caller's own codes) and may only give roles within its codes; FORBIDDEN otherwise. Identifiers stay unique across fields (VALIDATION_FAILED, also under parallel
   * requests). Taking the last usable `*` away is FORBIDDEN. Live sessions see the change: their
   * profile (/sys/me/info) and their permission codes (AUTH_PERMS, in the shared store, so on every
   * instance). Audited as user.update with `{ username, old, new }`, the changed fields only.
   */
  async update(dto: UpdateUserDto, actor: Actor): Promise<void> {
    const held = [...actor.codes];
    const { id } = await this.get(dto.id);
    // Under the role-save mutex: a role save refreshes its members' sessions under it too, so the
    // codes a session keeps are those of the last change, whichever came last.
    await this.mutex.run(Keys.roleSaveMutex, async () => {
      const user = await this.get(id);
      await this.access.assertMayActOn(actor, [user]);
      // Audit detail as the audit log shows changes: { username, old: {...}, new: {...} }, changed fields only.
      const detail = { username: user.username, old: {} as Record<string, unknown>, new: {} as Record<string, unknown> };
      const change: UserChange = { fields: {} };
      for (const field of ['name', 'mobile', 'email'] as const) {
        const next = dto[field];
        if (next === undefined || next === user[field]) continue;
        change.fields[field] = next as string;
        detail.old[field] = user[field];
        detail.new[field] = next;
      }
      const oldRoles = ((await this.roles.rolesOf([id])).get(id) ?? []).sort();
      let losesAll = false;
      if (dto.roles) {
        const next = [...new Set(dto.roles)].sort();
        if (next.join('\n') !== oldRoles.join('\n')) {
          await this.roles.assertMayAssign(held, next);
          change.roleCodes = next;
          detail.old.roles = oldRoles;
          detail.new.roles = next;
          const before = await this.roles.permissionsOf(id);
          losesAll = before.includes(ALL_PERMISSIONS) && !(await this.roles.permissionsOfRoles(next)).includes(ALL_PERMISSIONS);
        }
      }
      if (!Object.keys(detail.new).length) return;
      if ('mobile' in change.fields || 'email' in change.fields) {
        change.identifiers = identifiersOf({ ...user, ...change.fields });
        await this.assertUnique(change.identifiers, id);
      }
      const write = () => this.writeUpdate(id, change);
      // A role change must not leave no enabled, unlocked holder of `*`.
      await (losesAll ? this.protection.keepingSuperAdmin({ userId: id }, write) : write());
      if (Object.keys(change.fields).length) {
        await this.sessions.updateProfile(id, { name: user.name, mobile: user.mobile, email: user.email, ...change.fields });
      }
      if (change.roleCodes) await this.sessions.refreshPermissions(id, await this.roles.permissionsOf(id));
      await this.audit.recordDone('user.update', async () => ({
        ...actedBy(actor),
        targetId: id,
        targetName: user.username,
        detail,
      }));
    });
  }

  /** The update's write, with create's answer to a value taken meanwhile (VALIDATION_FAILED, never 500). */
  private async writeUpdate(id: string, change: UserChange): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.users.update(id, change);
        return;
      } catch (err) {
        const retry = isDeadlock(err) && attempt < 3;
        if (!retry && !isUniqueViolation(err)) throw err;
        if (change.identifiers) await this.assertUnique(change.identifiers, id);
        if (!retry) throw fieldsFailed([this.taken(change.fields.mobile !== undefined ? 'mobile' : 'email')]);
      }
    }
  }

  /**
   * Soft delete: the user can no longer log in (a login answers as for an unknown
   * account: UserEntity.deleteTime hides the row from the lookup, so the same path, log row and
   * dummy compare run), is not listed, and every session (and with it its streams and QR codes)
   * ends; the identifiers stay taken and the log rows stay. Not oneself, not the last usable holder
   * of `*`, and not a user whose codes the caller does not hold: a delete cannot be
   * undone through the API. Audited as user.delete.
   */
  async remove(given: string, actor: Actor): Promise<void> {
    const user = await this.get(given);
    const { id } = user;
    this.protection.assertNotSelf(actor.id, id);
    await this.access.assertMayActOn(actor, [user]);
    await this.protection.keepingSuperAdmin({ userId: id }, () => this.mutex.run(Keys.loginMutex(id), async () => {
      await this.users.softDelete(id, this.clock.now());
      await this.sessions.endAll(id);
    }));
    await this.audited('user.delete', actor, user);
  }

  /**
   * Lock(userId) by an administrator; it ends the user's sessions, and refuses the caller's own
   * account and the last enabled, unlocked holder of `*` (nobody locks the service out of administration).
   * `by`: the acting administrator (audited as user.lock), or only its id for a call from no request (not audited).
   */
  lock(given: string, by: Actor | string): Promise<void> {
    return this.lockAll([given], by);
  }

  /**
   * lock for several users (`{ ids }`), all or nothing: every user is found and
   * checked (not oneself, within the caller's codes, and together they are not the last usable
   * holders of `*`) before any is locked; then each is locked, its sessions ended and audited on its own.
   */
  async lockAll(given: string[], by: Actor | string): Promise<void> {
    const users = await this.targets(given, by);
    for (const { id } of users) this.protection.assertNotSelf(actorIdOf(by), id);
    const unlockTimes = new Map<string, Date | null>();
    await this.protection.keepingSuperAdmin({ userIds: users.map((u) => u.id) }, async () => {
      for (const { id } of users) {
        await this.mutex.run(Keys.loginMutex(id), async () => {
          unlockTimes.set(id, await this.lockForLockMinutes(id));
          await this.sessions.endAll(id);
        });
      }
    });
    for (const user of users) {
      this.events.emit(AccountLockedEvent.NAME, new AccountLockedEvent(user.id, 'admin'));
      await this.audited('user.lock', by, user, lockChange(user, { locked: true, unlockTime: unlockTimes.get(user.id) ?? null }));
    }
  }

  /**
   * unlock(userId); the failure count starts again — only for an account
   * that is locked: otherwise a holder of sys:user:unlock could restart someone's
   * count after every few guesses. Under the account's login mutex like lock: a wrong password being
   * counted right now must not lock the account again with the failures from before this unlock.
   * Audited as user.unlock when an actor is given and the account was locked.
   */
  unlock(given: string, actor?: Actor): Promise<void> {
    return this.unlockAll([given], actor);
  }

  /** unlock for several users, all found and checked before any changes; each audited. */
  async unlockAll(given: string[], actor?: Actor): Promise<void> {
    const users = await this.targets(given, actor);
    const changed: UserEntity[] = [];
    for (const user of users) {
      await this.mutex.run(Keys.loginMutex(user.id), async () => {
        // The row as it is now, under the mutex: a lock by failures may have come since the lookup.
        const current = await this.users.byId(user.id);
        if (!current?.locked) return;
        await this.users.unlock(user.id, this.clock.now());
        changed.push(current);
      });
    }
    for (const user of changed) await this.audited('user.unlock', actor, user, lockChange(user, { locked: false, unlockTime: null }));
  }

  /** Disable(userId) by an administrator; refused for the caller and the last holder of `*`, as lock. `by` as for lock. */
  disable(given: string, by: Actor | string): Promise<void> {
    return this.disableAll([given], by);
  }

  /** disable for several users, all or nothing as lockAll. */
  async disableAll(given: string[], by: Actor | string): Promise<void> {
    const users = await this.targets(given, by);
    for (const { id } of users) this.protection.assertNotSelf(actorIdOf(by), id);
    await this.protection.keepingSuperAdmin({ userIds: users.map((u) => u.id) }, async () => {
      for (const { id } of users) {
        await this.mutex.run(Keys.loginMutex(id), async () => {
          await this.users.disable(id);
          await this.sessions.endAll(id);
        });
      }
    });
    for (const user of users) await this.audited('user.disable', by, user, { old: { disabled: !!user.disabled }, new: { disabled: true } });
  }

  /**
   * dormantDays, for the daily job: disables the user as an administrator's disable does
   * (under the account's login mutex, every session ended) — but only while it is still enabled,
   * still without a successful login since `cutoff` and still not holding `*` (a login or a role
   * change may have come since the job listed it). True when this call disabled it. Not audited
   * here: the job records it as done by `system`.
   */
  async disableDormant(id: string, cutoff: Date): Promise<boolean> {
    return this.mutex.run(Keys.loginMutex(id), async () => {
      if ((await this.roles.permissionsOf(id)).includes(ALL_PERMISSIONS)) return false;
      if (!(await this.users.disableIfDormant(id, cutoff))) return false;
      await this.sessions.endAll(id);
      return true;
    });
  }

  /** A successful login at `at`, any way in (LoginService.complete, under the account's login mutex). */
  recordLogin(id: string, at: Date): Promise<void> {
    return this.users.recordLogin(id, at);
  }

  /**
   * enable(userId); the failure count starts again — only for an account that
   * is disabled. Under the login mutex as unlock; audited as user.enable
   * when an actor is given and the account was disabled.
   */
  enable(given: string, actor?: Actor): Promise<void> {
    return this.enableAll([given], actor);
  }

  /** enable for several users, all found and checked before any changes; each audited. */
  async enableAll(given: string[], actor?: Actor): Promise<void> {
    const users = await this.targets(given, actor);
    const changed: UserEntity[] = [];
    for (const user of users) {
      await this.mutex.run(Keys.loginMutex(user.id), async () => {
        const current = await this.users.byId(user.id);
        if (!current?.disabled) return;
        await this.users.enable(user.id, this.clock.now());
        changed.push(current);
      });
    }
    for (const user of changed) await this.audited('user.enable', actor, user, { old: { disabled: true }, new: { disabled: false } });
  }

  /**
   * The current rows of the users `given` (each once, by its own id); NOT_FOUND before anything
   * changes when one is missing, then FORBIDDEN when an administrator (`by` an Actor) lacks a code of
   * any of them. A call from no request (`by` an id, or none) acts for the service.
   */
  private async targets(given: string[], by?: Actor | string): Promise<UserEntity[]> {
    const found = new Map<string, UserEntity>();
    for (const id of given) {
      const user = await this.get(id);
      found.set(user.id, user);
    }
    const users = [...found.values()];
    if (by !== undefined && typeof by !== 'string') await this.access.assertMayActOn(by, users);
    return users;
  }

  /**
   * Reset: the default password (or a generated one, returned once), password_update_time cleared.
   * Not of one's own account: that is /sys/me/pass/update, which asks for the old password.
   * Audited as user.resetPass (never with the password).
   */
  async resetPassword(given: string, actor: Actor): Promise<{ password: string } | null> {
    const user = await this.get(given);
    const { id } = user;
    this.protection.assertNotSelf(actor.id, id);
    // The reset hands the caller the password, so with it every code of the target.
    await this.access.assertMayActOn(actor, [user]);
    // An empty DEFAULT_PASSWORD counts as unset: never store the hash of '' (anyone could log in).
    const generated = this.config.DEFAULT_PASSWORD ? undefined : generatePassword(await this.strategy.passwordRules());
    const hash = await this.hasher.hash(generated ?? this.config.DEFAULT_PASSWORD!);
    const keep = previousToKeep((await this.strategy.userStrategy()).passwordHistoryCount);
    await this.mutex.run(Keys.loginMutex(id), async () => {
      await this.users.resetPassword(id, hash, this.clock.now(), keep);
      await this.sessions.endAll(id);
    });
    await this.audited('user.resetPass', actor, user);
    return generated ? { password: generated } : null;
  }

  /**
   * The audit row of an administrator's action on one user, once it has happened; none without an
   * actor. `change`: the fields it changed, old → new (the console shows them side by side).
   */
  private async audited(action: AuditAction, by: Actor | string | undefined, target: UserEntity, change?: AuditChange): Promise<void> {
    if (by === undefined || typeof by === 'string') return;
    await this.audit.recordDone(action, async () => ({
      ...actedBy(by),
      targetId: target.id,
      targetName: target.username,
      detail: { username: target.username, ...change },
    }));
  }

  /**
   * Change, once the old password is proven and the new one screened (PasswordChangeService):
   * the complexity check again (the strategy may have changed meanwhile), the new hash (the replaced
   * one joins the history), and the user's other sessions end. The caller holds the
   * account's login mutex.
   */
  async setOwnPassword(userId: string, currentTokenHash: string, newPass: string): Promise<void> {
    const rules = await this.strategy.userStrategy();
    checkPasswordComplexity(newPass, rules);
    await this.users.setPassword(userId, await this.hasher.hash(newPass), this.clock.now(), previousToKeep(rules.passwordHistoryCount));
    await this.sessions.endAll(userId, currentTokenHash);
  }

  /**
   * At a login attempt (password or QR): a lock whose unlock time is set and
   * earlier than now ends here (the user object is updated too); true while still locked.
   */
  async stillLocked(user: UserEntity): Promise<boolean> {
    if (!user.locked) return false;
    const now = this.clock.now();
    if (!unlockDue({ locked: true, unlockTime: user.unlockTime }, now)) return true;
    await this.users.unlock(user.id, now);
    Object.assign(user, { locked: false, unlockTime: null, failureResetTime: now });
    return false;
  }

  /**
   * The automatic lock when wrong passwords reach maxFailureTimes; the caller
   * (LockoutService) holds the account's login mutex. Ends no session: a lock reached by wrong
   * passwords only refuses new logins, or anyone who knows an account name could
   * log its owner out. The administrator's lock is `lock`, which does end them.
   */
  /** Locks the account after its failures; answers when the lock ends. */
  async lockAfterFailures(user: UserEntity, failures: number): Promise<Date> {
    const unlockTime = await this.lockForLockMinutes(user.id);
    // Lps_account_locks_total{reason="failures"}: emitted here, where the lock happens,
    // once per lock (not from the audit row: an audit write may fail, and admin locks audit too).
    this.events.emit(AccountLockedEvent.NAME, new AccountLockedEvent(user.id, 'failures'));
    // A lock by failures is an event an administrator sees in the audit log, by `system`.
    await this.audit.recordDone('user.lock', {
      ...SYSTEM_ACTOR,
      targetId: user.id,
      targetName: user.username,
      detail: { username: user.username, reason: 'failures', failures, ...lockChange(user, { locked: true, unlockTime }) },
    });
    return unlockTime;
  }

  /** id → user, for lists that show who holds a session. */
  async byIds(ids: string[]): Promise<Map<string, UserEntity>> {
    const unique = [...new Set(ids)];
    if (!unique.length) return new Map();
    const rows = await this.users.byIds(unique);
    return new Map(rows.map((u) => [u.id, u]));
  }

  count(): Promise<number> {
    return this.users.count();
  }

  view(u: UserEntity, roles: string[], passwordExpireDays: number): UserView {
    return {
      id: u.id,
      username: u.username,
      name: u.name,
      mobile: u.mobile,
      email: u.email,
      locked: !!u.locked,
      unlockTime: u.unlockTime,
      disabled: !!u.disabled,
      passwordUpdateTime: u.passwordUpdateTime,
      passwordExpireTime: passwordExpiresAt(u, passwordExpireDays),
      createTime: u.createTime,
      roles,
      mfaEnabled: false,
      failureCount: 0,
      lastLoginTime: u.lastLoginTime ?? null,
    };
  }

  /** For either lock (failures or an administrator): locked = true, unlock_time = now + lockMinutes. Sessions are the caller's choice. */
  private async lockForLockMinutes(id: string): Promise<Date> {
    const { lockMinutes } = await this.strategy.loginStrategy();
    const until = lockedUntil(this.clock.now(), lockMinutes);
    await this.users.lock(id, until);
    return until;
  }

  /**
   * No user name, mobile or e-mail may equal another user's user name, mobile or
   * e-mail (as normalised by user-identifier.ts); the user's own fields may share a value.
   */
  private async assertUnique(identifiers: Identifier[], ownerId?: string): Promise<void> {
    const taken = await this.users.identifiersTaken(identifiers.map((i) => i.value), ownerId);
    const problems: FieldProblem[] = identifiers.filter((i) => taken.has(i.value)).map((i) => this.taken(i.kind));
    if (problems.length) throw fieldsFailed(problems);
  }

  private taken(field: IdentifierKind): FieldProblem {
    return fieldProblem('validation.identifierTaken', field);
  }
}

const actorIdOf = (by: Actor | string): string => (typeof by === 'string' ? by : by.id);
