import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';

import { AuditChange, AuditLogService, SYSTEM_ACTOR } from '../audit/audit-log.service';
import type { Actor } from '../common/auth-context';
import { Clock } from '../common/clock';
import { SessionService } from '../session/session.service';
import { KeyedMutex } from '../store/keyed-mutex';
import { Keys } from '../store/keys';
import { StrategyService } from '../strategy/strategy.service';
import { AccountLockedEvent } from './account.events';
import { auditAdminAction, lockChange } from './admin-audit';
import { ALL_PERMISSIONS } from './grants';
import { lockedUntil, unlockDue } from './lock-policy';
import { RoleService } from './role.service';
import { SelfProtection } from './self-protection';
import { TargetAccess } from './target-access';
import { UserEntity } from './user.entity';
import { UserRepository } from './user.repository';
import { UserLookup } from './user-lookup.service';

/** What an administrator can do to the state of accounts. */
export type StateTransition = 'lock' | 'unlock' | 'disable' | 'enable';

/**
 * The lock and disable state of accounts: an administrator's lock, unlock, disable and enable (one
 * or many users at a time), the automatic lock after wrong passwords and its end once due, and the
 * dormant job's disable. Every change runs under the account's login mutex, so it never interleaves
 * with a login of the same account.
 */
@Injectable()
export class AccountStateService {
  constructor(
    private readonly users: UserRepository,
    private readonly lookup: UserLookup,
    private readonly roles: RoleService,
    private readonly strategy: StrategyService,
    private readonly sessions: SessionService,
    private readonly clock: Clock,
    private readonly mutex: KeyedMutex,
    private readonly protection: SelfProtection,
    private readonly access: TargetAccess,
    private readonly audit: AuditLogService,
    private readonly events: EventEmitter2,
  ) {}

  /**
   * `transition` for the users `given`, all found and checked before any changes (NOT_FOUND, then
   * FORBIDDEN when an administrator lacks a code of any of them).
   *
   * lock and disable: not of oneself, and together the users are not the last usable holders of
   * `*`, all or nothing; then each changes and its sessions end. A lock lasts lockMinutes.
   * unlock and enable: only a user that is locked (disabled) changes, and its failure count starts
   * again; the others stay as they are, so a holder of the unlock permission cannot restart
   * someone's count after every few guesses. Each under the account's login mutex: a wrong
   * password counted right now must not lock the account again with the failures from before.
   *
   * `by`: the acting administrator, audited per user changed (user.lock, user.unlock, ...); or only
   * its id, or nothing, for a call from no request (acts for the service, not audited).
   */
  async changeState(given: string[], transition: StateTransition, by?: Actor | string): Promise<void> {
    const users = await this.targets(given, by);
    if (transition === 'lock' || transition === 'disable') await this.restrict(users, transition, by);
    else await this.lift(users, transition, by);
  }

  private async restrict(users: UserEntity[], transition: 'lock' | 'disable', by?: Actor | string): Promise<void> {
    if (by !== undefined) for (const { id } of users) this.protection.assertNotSelf(actorIdOf(by), id);
    const changes = new Map<string, AuditChange>();
    await this.protection.keepingSuperAdmin({ userIds: users.map((u) => u.id) }, async () => {
      for (const user of users) {
        await this.mutex.run(Keys.loginMutex(user.id), async () => {
          changes.set(
            user.id,
            transition === 'lock'
              ? lockChange(user, { locked: true, unlockTime: await this.lockForLockMinutes(user.id) })
              : await this.disableNow(user),
          );
          await this.sessions.endAll(user.id);
        });
      }
    });
    for (const user of users) {
      if (transition === 'lock') this.events.emit(AccountLockedEvent.NAME, new AccountLockedEvent(user.id, 'admin'));
      await auditAdminAction(this.audit, `user.${transition}`, by, user, changes.get(user.id));
    }
  }

  private async disableNow(user: UserEntity): Promise<AuditChange> {
    await this.users.disable(user.id);
    return { old: { disabled: !!user.disabled }, new: { disabled: true } };
  }

  private async lift(users: UserEntity[], transition: 'unlock' | 'enable', by?: Actor | string): Promise<void> {
    const unlock = transition === 'unlock';
    const changed: UserEntity[] = [];
    for (const user of users) {
      await this.mutex.run(Keys.loginMutex(user.id), async () => {
        // The row as it is now, under the mutex: a lock by failures may have come since the lookup.
        const current = await this.users.byId(user.id);
        if (!(unlock ? current?.locked : current?.disabled)) return;
        if (unlock) await this.users.unlock(user.id, this.clock.now());
        else await this.users.enable(user.id, this.clock.now());
        changed.push(current!);
      });
    }
    for (const user of changed) {
      const change = unlock
        ? lockChange(user, { locked: false, unlockTime: null })
        : { old: { disabled: true }, new: { disabled: false } };
      await auditAdminAction(this.audit, `user.${transition}`, by, user, change);
    }
  }

  /**
   * For the dormantDays job: disables the user as an administrator's disable does (under the
   * account's login mutex, every session ended), but only while it is still enabled, still without
   * a successful login since `cutoff` and still not holding `*` (a login or a role change may have
   * come since the job listed it). True when this call disabled it. Not audited here: the job
   * records it as done by `system`.
   */
  async disableDormant(id: string, cutoff: Date): Promise<boolean> {
    return this.mutex.run(Keys.loginMutex(id), async () => {
      if ((await this.roles.permissionsOf(id)).includes(ALL_PERMISSIONS)) return false;
      if (!(await this.users.disableIfDormant(id, cutoff))) return false;
      await this.sessions.endAll(id);
      return true;
    });
  }

  /**
   * At an attempt to prove oneself (any way in, a password change, a step-up): a lock whose unlock
   * time is set and earlier than now ends here (the user object is updated too); true while still
   * locked. The caller holds the account's login mutex.
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
   * The automatic lock when wrong passwords reach maxFailureTimes; the caller (LockoutService)
   * holds the account's login mutex. Ends no session: a lock reached by wrong passwords only
   * refuses new logins, or anyone who knows an account name could log its owner out. The
   * administrator's lock (changeState) does end them.
   */
  /** Locks the account after its failures; answers when the lock ends. */
  async lockAfterFailures(user: UserEntity, failures: number): Promise<Date> {
    const unlockTime = await this.lockForLockMinutes(user.id);
    // Counted where the lock happens, once per lock: not from the audit row, which may fail to be
    // written and which an administrator's lock writes too.
    this.events.emit(AccountLockedEvent.NAME, new AccountLockedEvent(user.id, 'failures'));
    // A lock by failures is an event an administrator sees in the audit log, done by `system`.
    await this.audit.recordDone('user.lock', {
      ...SYSTEM_ACTOR,
      targetId: user.id,
      targetName: user.username,
      detail: {
        username: user.username,
        reason: 'failures',
        failures,
        ...lockChange(user, { locked: true, unlockTime }),
      },
    });
    return unlockTime;
  }

  /** For either lock: locked, until now + lockMinutes. Sessions are the caller's choice. */
  private async lockForLockMinutes(id: string): Promise<Date> {
    const { lockMinutes } = await this.strategy.loginStrategy();
    const until = lockedUntil(this.clock.now(), lockMinutes);
    await this.users.lock(id, until);
    return until;
  }

  /**
   * The current rows of the users `given` (each once, by its own id); NOT_FOUND before anything
   * changes when one is missing, then FORBIDDEN when an administrator (`by` an Actor) lacks a code of
   * any of them. A call from no request (`by` an id, or none) acts for the service.
   */
  private async targets(given: string[], by?: Actor | string): Promise<UserEntity[]> {
    const found = new Map<string, UserEntity>();
    for (const id of given) {
      const user = await this.lookup.get(id);
      found.set(user.id, user);
    }
    const users = [...found.values()];
    if (by !== undefined && typeof by !== 'string') await this.access.assertMayActOn(by, users);
    return users;
  }
}

const actorIdOf = (by: Actor | string): string => (typeof by === 'string' ? by : by.id);
