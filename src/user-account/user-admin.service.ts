import { randomUUID } from 'node:crypto';

import { Injectable, OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';

import { actedBy, AuditLogService } from '../audit/audit-log.service';
import { AppException, FieldProblem, fieldProblem, fieldsFailed } from '../common/app.exception';
import type { Actor } from '../common/auth-context';
import { Clock } from '../common/clock';
import { isDeadlock, isUniqueViolation } from '../common/db-errors';
import { ErrorCode } from '../common/error-code';
import { Page } from '../common/paging.dto';
import { auditedPii, seesPii, shownEmail, shownMobile } from '../common/pii-mask';
import { AppConfig } from '../config/app-config';
import { LoginLogService } from '../login-log/login-log.service';
import { PiiCipher } from '../pii/pii-cipher';
import { SessionService } from '../session/session.service';
import { KeyedMutex } from '../store/keyed-mutex';
import { Keys } from '../store/keys';
import { StrategyService } from '../strategy/strategy.service';
import { accountStates } from './account-state';
import { auditAdminAction } from './admin-audit';
import { AdminModeRules } from './admin-mode';
import { ListUsersDto, UpdateUserDto, UserState } from './dto/user.dto';
import { ALL_PERMISSIONS } from './grants';
import { failureWindowStart } from './lock-policy';
import { MFA_STATUS, MfaStatus } from './mfa-status';
import { USER_PASSKEYS, UserPasskeys } from './passkey-status';
import { passwordExpiresAt } from './password-expiry';
import { PasswordHasher } from './password-hasher';
import { checkPasswordComplexity, generatePassword } from './password-policy';
import { previousToKeep } from './password-screen';
import { RoleService } from './role.service';
import { SelfProtection } from './self-protection';
import { TargetAccess } from './target-access';
import { UserEntity } from './user.entity';
import { UserChange, UserRepository } from './user.repository';
import { Identifier, IdentifierKind, identifiersOf } from './user-identifier';
import { UserLookup } from './user-lookup.service';

/** The fields of /sys/user/update besides `id` and `roles`: the account's own, which sys:user:update edits. */
const PROFILE_FIELDS = ['username', 'name', 'mobile', 'email'] as const;

/** Whether an update sends roles alone (no field of PROFILE_FIELDS): what a holder of sys:user:grant may send. */
export const rolesAlone = (dto: UpdateUserDto): boolean =>
  dto.roles !== undefined && PROFILE_FIELDS.every((f) => dto[f] === undefined);

export interface NewUser {
  username: string;
  name: string;
  mobile?: string | null;
  email?: string | null;
  /** Plain text; absent: generated and returned once. */
  password?: string;
  roles?: string[];
}

/** What a user may change of their own account (/sys/me/profile). */
export type OwnFields = Partial<Pick<UserEntity, 'name' | 'mobile' | 'email'>>;

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
  /** Whether the second factor is on (answered through MFA_STATUS; false without a second-factor module). */
  mfaEnabled: boolean;
  /** Registered passkeys (answered through USER_PASSKEYS; 0 without the passkey module). */
  passkeyCount: number;
  /** The failures the lock check counts now: those in its window, since the last reset. */
  failureCount: number;
  /** The last successful login, any way in; null when never. */
  lastLoginTime: Date | null;
  /** The most pressing of `states` (accountState): the one the console shows the user under. */
  state: UserState;
  /** Every state that applies now, most pressing first (accountStates); the list filter finds the user under each. */
  states: UserState[];
}

/**
 * The administration of users: create, list, update, delete and reset a password. The lock and
 * disable state is AccountStateService's; reads for other features are UserLookup's.
 */
@Injectable()
export class UserAdminService implements OnModuleInit {
  private mfaStatus: MfaStatus[] = [];
  private passkeys: UserPasskeys[] = [];

  constructor(
    private readonly users: UserRepository,
    private readonly lookup: UserLookup,
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
    private readonly logs: LoginLogService,
    private readonly modules: ModuleRef,
    private readonly mode: AdminModeRules,
    private readonly pii: PiiCipher,
  ) {}

  onModuleInit() {
    this.mfaStatus = MFA_STATUS.collect(this.modules);
    this.passkeys = USER_PASSKEYS.collect(this.modules);
  }

  /**
   * `held`: the permission codes of the caller, who may only give roles within them (three mode: who
   * needs sys:user:grant to give any, and then roles of one set).
   * With an actor (an administrator's request), audited as user.create with the roles given; never
   * with the password. Without one (the first start's admin), not audited.
   */
  async create(input: NewUser, held: string[], actor?: Actor): Promise<{ id: string; password?: string }> {
    const rules = await this.strategy.passwordRules();
    const generated = input.password === undefined ? generatePassword(rules) : undefined;
    const plain = input.password ?? generated!;
    checkPasswordComplexity(plain, rules);
    const roleCodes = [...new Set(input.roles ?? [])];
    await this.roles.assertMayCreateWith(held, roleCodes);
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
      // A password set by an administrator is an initial password: the user is asked to change it.
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
  async list(query: ListUsersDto, wholePii = false): Promise<Page<UserView>> {
    const now = this.clock.now();
    const { passwordExpireDays } = await this.strategy.userStrategy();
    const state = query.state ? { state: query.state, now, passwordExpireDays } : undefined;
    const [rows, total] = await this.users.page({ keyword: query.keyword, state }, query.pageNum, query.pageSize);
    return { total, rows: await this.views(rows, passwordExpireDays, now, wholePii) };
  }

  /**
   * /sys/user/detail: one user as a list row; the mobile and e-mail whole to a holder of sys:user:pii, and then
   * audited as user.pii.view (docs/security.md#personal-data); masked to anyone else.
   */
  async detail(id: string, actor: Actor): Promise<UserView> {
    const user = await this.lookup.get(id);
    const now = this.clock.now();
    const { passwordExpireDays } = await this.strategy.userStrategy();
    const whole = seesPii(actor.codes);
    const [view] = await this.views([user], passwordExpireDays, now, whole);
    if (whole && (user.mobile || user.email))
      await this.audit.recordDone('user.pii.view', {
        ...actedBy(actor),
        targetId: user.id,
        targetName: user.username,
      });
    return view;
  }

  /** Users as list rows: roles, second factor, passkeys and the failure count the lock check would see now. */
  private async views(
    rows: UserEntity[],
    passwordExpireDays: number,
    now: Date,
    wholePii: boolean,
  ): Promise<UserView[]> {
    const ids = rows.map((u) => u.id);
    const roles = await this.roles.rolesOf(ids);
    const mfa = new Set((await Promise.all(this.mfaStatus.map((s) => s.enabledAmong(ids)))).flatMap((set) => [...set]));
    const passkeys = await Promise.all(this.passkeys.map((p) => p.countsAmong(ids)));
    const { maxFailureInterval } = await this.strategy.loginStrategy();
    const failures = await this.logs.countFailuresSinceEach(
      rows.map((u) => ({
        userId: u.id,
        since: failureWindowStart(now, maxFailureInterval, u.failureResetTime),
      })),
    );
    return rows.map((u) => ({
      ...this.view(u, roles.get(u.id) ?? [], passwordExpireDays, now, wholePii),
      mfaEnabled: mfa.has(u.id),
      passkeyCount: passkeys.reduce((n, counts) => n + (counts.get(u.id) ?? 0), 0),
      failureCount: failures.get(u.id) ?? 0,
    }));
  }

  /**
   * /sys/user/update: user name, name, mobile, e-mail and the role set, each only when given and
   * different. The caller may only edit a user whose codes it holds (an edit of an
   * account above the caller — its e-mail, which gets the security notices, or its roles — would act
   * beyond the caller's own codes) and may only give roles within its codes; FORBIDDEN otherwise.
   * Identifiers stay unique across fields (VALIDATION_FAILED, also under parallel
   * requests); a new user name frees the old one, and the login log keeps the name each attempt
   * used. Taking the last usable `*` away is FORBIDDEN. Live sessions see the change: their user
   * name and profile (/sys/me/info) and their permission codes (AUTH_PERMS, in the shared store, so
   * on every instance). Audited as user.update with `{ username, old, new }`, the changed fields only.
   * Three mode (docs/security.md#three-administrators): a role change needs sys:user:grant and the set rule
   * instead of the caller's codes — also of the target's, when roles are all the request changes (the
   * security administrator grants the roles of every set) — and nobody changes their own roles.
   */
  async update(dto: UpdateUserDto, actor: Actor): Promise<void> {
    const held = [...actor.codes];
    const { id } = await this.lookup.get(dto.id);
    // Under the role-save mutex: a role save refreshes its members' sessions under it too, so the
    // codes a session keeps are those of the last change, whichever came last.
    await this.mutex.run(Keys.roleSaveMutex, async () => {
      // Compared and audited as people typed them; the row holds them sealed.
      const user = this.pii.revealed(await this.lookup.get(id));
      const grantOnly = this.mode.three && rolesAlone(dto);
      if (!grantOnly) await this.access.assertMayActOn(actor, [user]);
      // The audit detail as the console shows a change side by side: { username, old, new }, changed fields only.
      const detail = {
        username: user.username,
        old: {} as Record<string, unknown>,
        new: {} as Record<string, unknown>,
      };
      const change: UserChange = { fields: {} };
      for (const field of PROFILE_FIELDS) {
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
          if (this.mode.three && actor.id === id) throw new AppException(ErrorCode.FORBIDDEN);
          await this.roles.assertMayAssign(held, next);
          change.roleCodes = next;
          detail.old.roles = oldRoles;
          detail.new.roles = next;
          const before = await this.roles.permissionsOf(id);
          losesAll =
            before.includes(ALL_PERMISSIONS) && !(await this.roles.permissionsOfRoles(next)).includes(ALL_PERMISSIONS);
        } else if (this.mode.three) {
          // The same roles sent again are a save of them: none keeps a user of two sets as it is.
          await this.roles.assertMayAssign(held, next);
        }
      }
      if (!Object.keys(detail.new).length) return;
      if ('username' in change.fields || 'mobile' in change.fields || 'email' in change.fields) {
        change.identifiers = identifiersOf({ ...user, ...change.fields });
        await this.assertUnique(change.identifiers, id);
      }
      const write = () => this.writeUpdate(id, change);
      // A role change must not leave no enabled, unlocked holder of `*`.
      await (losesAll ? this.protection.keepingSuperAdmin({ userId: id }, write) : write());
      // A new user name reaches the user's live sessions too: they stay (the name proves
      // nothing), and the audit rows of what they do next carry the name the user has now.
      if (Object.keys(change.fields).length) await this.copyToSessions(id, change.fields.username);
      if (change.roleCodes) await this.roles.refreshSessionsOf(id);
      await this.audit.recordDone('user.update', async () => ({
        ...actedBy(actor),
        targetId: id,
        // The name the user has now; `detail` keeps the one before.
        targetName: change.fields.username ?? user.username,
        // Mobile and e-mail masked where every reader sees them, whole only sealed (docs/security.md#personal-data).
        ...auditedPii(detail),
      }));
    });
  }

  /**
   * The user's own name, mobile or e-mail (/sys/me/profile, src/profile): update()'s identifier
   * rules and session refresh, without its checks of the caller's codes (nobody but the user is
   * acted on). Answers the changed fields before and after, or null when nothing changed.
   * Under update()'s mutex, read to copy: an administrator's update in between would otherwise be
   * undone, in the identifiers written from the row read here (a rename brought back as a login
   * name) or in the sessions by an older copy of the row; and a wait that gives up changes nothing.
   */
  changeOwn(id: string, fields: OwnFields): Promise<{ username: string; old: OwnFields; new: OwnFields } | null> {
    return this.mutex.run(Keys.roleSaveMutex, async () => {
      const user = this.pii.revealed(await this.lookup.get(id));
      const change: UserChange = { fields: {} };
      const old: OwnFields = {};
      const next: OwnFields = {};
      for (const field of ['name', 'mobile', 'email'] as const) {
        const value = fields[field];
        if (value === undefined || value === user[field]) continue;
        Object.assign(change.fields, { [field]: value });
        Object.assign(old, { [field]: user[field] });
        Object.assign(next, { [field]: value });
      }
      if (!Object.keys(next).length) return null;
      if ('mobile' in change.fields || 'email' in change.fields) {
        change.identifiers = identifiersOf({ ...user, ...change.fields });
        await this.assertUnique(change.identifiers, id);
      }
      await this.writeUpdate(id, change);
      await this.copyToSessions(id);
      return { username: user.username, old, new: next };
    });
  }

  /**
   * The profile as the row now holds it, mobile and e-mail sealed as a login puts them (not plain
   * values, which the sessions' store would then keep in the clear; MeController opens them), into
   * the user's live sessions. Under the user's login mutex: a login in flight may have read the row
   * before the change, and it stores its session before it lets the mutex go, so that session is
   * among those updated here.
   */
  private copyToSessions(id: string, username?: string): Promise<void> {
    return this.mutex.run(Keys.loginMutex(id), async () => {
      const stored = await this.lookup.get(id);
      const profile = { name: stored.name, mobile: stored.mobile, email: stored.email };
      await this.sessions.updateProfile(id, profile, username);
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
        if (!retry) {
          const kind = (['username', 'mobile', 'email'] as const).find((k) => change.fields[k] !== undefined);
          throw fieldsFailed([this.taken(kind ?? 'email')]);
        }
      }
    }
  }

  /**
   * A soft delete: the user can no longer log in (a login answers as for an unknown
   * account: UserEntity.deleteTime hides the row from the lookup, so the same path, log row and
   * dummy compare run), is not listed, and every session (and with it its streams and QR codes)
   * ends; the identifiers stay taken and the log rows stay. Not oneself, not the last usable holder
   * of `*`, and not a user whose codes the caller does not hold: a delete cannot be
   * undone through the API. Audited as user.delete.
   */
  async remove(given: string, actor: Actor): Promise<void> {
    const user = await this.lookup.get(given);
    const { id } = user;
    this.protection.assertNotSelf(actor.id, id);
    await this.access.assertMayActOn(actor, [user]);
    await this.protection.keepingSuperAdmin({ userId: id }, () =>
      this.mutex.run(Keys.loginMutex(id), async () => {
        await this.users.softDelete(id, this.clock.now());
        await this.sessions.endAll(id);
      }),
    );
    await auditAdminAction(this.audit, 'user.delete', actor, user);
  }

  /**
   * Reset: the password the administrator typed (checked by the complexity rules), else the default
   * password or a generated one (returned once); password_update_time cleared.
   * Not of one's own account: that is /sys/me/pass/update, which asks for the old password.
   * Audited as user.resetPass (never with the password).
   */
  async resetPassword(given: string, actor: Actor, typed?: string): Promise<{ password: string } | null> {
    const user = await this.lookup.get(given);
    const { id } = user;
    this.protection.assertNotSelf(actor.id, id);
    // The reset hands the caller the password, so with it every code of the target.
    await this.access.assertMayActOn(actor, [user]);
    const rules = await this.strategy.passwordRules();
    if (typed !== undefined) checkPasswordComplexity(typed, rules);
    // An empty DEFAULT_PASSWORD counts as unset: never store the hash of '' (anyone could log in).
    const generated = typed !== undefined || this.config.DEFAULT_PASSWORD ? undefined : generatePassword(rules);
    const hash = await this.hasher.hash(typed ?? generated ?? this.config.DEFAULT_PASSWORD!);
    const keep = previousToKeep((await this.strategy.userStrategy()).passwordHistoryCount);
    await this.mutex.run(Keys.loginMutex(id), async () => {
      await this.users.resetPassword(id, hash, this.clock.now(), keep);
      await this.sessions.endAll(id);
    });
    await auditAdminAction(this.audit, 'user.resetPass', actor, user);
    return generated ? { password: generated } : null;
  }

  /** `wholePii`: the mobile and e-mail whole (a holder of sys:user:pii), else masked (docs/security.md#personal-data). */
  view(u: UserEntity, roles: string[], passwordExpireDays: number, now: Date, wholePii = false): UserView {
    // The same rule the list's state filter selects by, so a row shows what filtering finds it under.
    const states = accountStates(u, passwordExpireDays, now);
    return {
      id: u.id,
      username: u.username,
      name: u.name,
      mobile: shownMobile(this.pii.reveal(u.mobile), wholePii),
      email: shownEmail(this.pii.reveal(u.email), wholePii),
      locked: !!u.locked,
      unlockTime: u.unlockTime,
      disabled: !!u.disabled,
      passwordUpdateTime: u.passwordUpdateTime,
      passwordExpireTime: passwordExpiresAt(u, passwordExpireDays),
      createTime: u.createTime,
      roles,
      mfaEnabled: false,
      passkeyCount: 0,
      failureCount: 0,
      lastLoginTime: u.lastLoginTime ?? null,
      state: states[0],
      states,
    };
  }

  /**
   * No user name, mobile or e-mail may equal another user's user name, mobile or
   * e-mail (as normalised by user-identifier.ts); the user's own fields may share a value.
   */
  private async assertUnique(identifiers: Identifier[], ownerId?: string): Promise<void> {
    const problems = await this.identifierProblems(identifiers, ownerId);
    if (problems.length) throw fieldsFailed(problems);
  }

  /** The identifiers among `identifiers` another user already holds, each as its field's refusal. */
  async identifierProblems(identifiers: Identifier[], ownerId?: string): Promise<FieldProblem[]> {
    const taken = await this.users.identifiersTaken(
      identifiers.map((i) => i.value),
      ownerId,
    );
    return identifiers.filter((i) => taken.has(i.value)).map((i) => this.taken(i.kind));
  }

  private taken(field: IdentifierKind): FieldProblem {
    return fieldProblem('validation.identifierTaken', field);
  }
}
