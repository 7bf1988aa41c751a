import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { EventEmitter2 } from '@nestjs/event-emitter';

import { actedBy, AuditAction, AuditLogService } from '../audit/audit-log.service';
import { AppException } from '../common/app.exception';
import type { Actor } from '../common/auth-context';
import { Clock } from '../common/clock';
import { ErrorCode } from '../common/error-code';
import { AppConfig } from '../config/app-config';
import { LoginStatus, LoginTypes } from '../login-log/login-log.entity';
import { LoginLogService } from '../login-log/login-log.service';
import { SessionService } from '../session/session.service';
import { KeyedMutex } from '../store/keyed-mutex';
import { Keys } from '../store/keys';
import { KvStore } from '../store/kv.store';
import { StrategyService } from '../strategy/strategy.service';
import { MFA_MODE_REQUIRED } from '../strategy/strategy.types';
import { AccountStateService } from '../user-account/account-state.service';
import { LockoutService } from '../user-account/lockout.service';
import { MfaStatus } from '../user-account/mfa-status';
import { ReauthCodeProof } from '../user-account/reauth.service';
import { SelfProtection } from '../user-account/self-protection';
import { TargetAccess } from '../user-account/target-access';
import type { UserEntity } from '../user-account/user.entity';
import { UserLookup } from '../user-account/user-lookup.service';
import { MfaChange, MfaChangedEvent } from './mfa.events';
import { MfaRepository } from './mfa.repository';
import { MfaCrypto, newRecoveryCodes } from './mfa-crypto';
import { SECOND_FACTOR_METHODS, SecondFactorMethod } from './second-factor-methods';
import { acceptedStep, isReplay, newTotpSecret, otpauthUrl } from './totp';

export const MFA_SETUP_TTL_MS = 10 * 60_000;

/** What proved the second factor. */
export type MfaProof = 'totp' | 'recovery';

/** Who asks on /sys/me/mfa/*: the session's user, its session and where the request came from. */
export interface MfaCaller {
  userId: string;
  tokenHash: string;
  ip: string;
  userAgent: string;
}

interface PendingSetup {
  /** Encrypted like the stored secret: the store never holds a secret in clear either. */
  secret: string;
  expireAt: number;
}

/**
 * Enrolment, the code check every step shares, self-service and the administrator's
 * reset. Every change of a user's second factor runs under the account's login mutex, so it never
 * interleaves with a login of that account on any instance.
 */
@Injectable()
export class MfaService implements MfaStatus, ReauthCodeProof, OnModuleInit {
  private readonly logger = new Logger('Mfa');
  private methods: SecondFactorMethod[] = [];

  constructor(
    private readonly repo: MfaRepository,
    private readonly crypto: MfaCrypto,
    private readonly store: KvStore,
    private readonly clock: Clock,
    private readonly mutex: KeyedMutex,
    private readonly accounts: UserLookup,
    private readonly states: AccountStateService,
    private readonly lockout: LockoutService,
    private readonly logs: LoginLogService,
    private readonly sessions: SessionService,
    private readonly strategy: StrategyService,
    private readonly audit: AuditLogService,
    private readonly protection: SelfProtection,
    private readonly access: TargetAccess,
    private readonly config: AppConfig,
    private readonly events: EventEmitter2,
    private readonly modules: ModuleRef,
  ) {}

  onModuleInit() {
    this.methods = SECOND_FACTOR_METHODS.collect(this.modules);
  }

  async enabled(userId: string): Promise<boolean> {
    return (await this.repo.enrolment(userId)) !== null;
  }

  enabledAmong(userIds: string[]): Promise<Set<string>> {
    return this.repo.enabledAmong(userIds);
  }

  /**
   * A current TOTP code (its step later than the last used one, recorded with a conditional write)
   * or an unused recovery code (spent with a conditional write): of concurrent uses exactly one
   * wins. 'replay' for a right TOTP code that is used up, also when
   * a concurrent use of it won: refused, but no guess, so callers neither log nor count it. Null
   * otherwise; a secret that does not decrypt (altered, or another key) is refused. Only 'totp' and
   * 'recovery' are proof.
   */
  async prove(userId: string, code: string): Promise<MfaProof | 'replay' | null> {
    const row = await this.repo.enrolment(userId);
    if (!row) return null;
    const now = this.clock.now();
    if (/^\d{6}$/.test(code)) {
      const secret = this.secretOf(row.secret, userId);
      if (secret === null) return null;
      const last = row.lastUsedStep === null ? null : Number(row.lastUsedStep);
      const step = acceptedStep(secret, code, now.getTime(), last);
      if (step === null) return isReplay(secret, code, now.getTime(), last) ? 'replay' : null;
      if (await this.repo.claimStep(userId, step)) return 'totp';
      // Claimed meanwhile by this step or a later one, unless the enrolment itself went away.
      return (await this.repo.enrolment(userId)) ? 'replay' : null;
    }
    for (const hash of this.crypto.recoveryCodeHashes(code))
      if (await this.repo.useRecoveryCode(userId, hash, now)) return 'recovery';
    return null;
  }

  /** /sys/me/mfa/setup: a new secret, pending until enabled. */
  async setup(userId: string): Promise<{ secret: string; otpauthUrl: string }> {
    const user = await this.accounts.get(userId);
    if (await this.enabled(user.id)) throw new AppException(ErrorCode.MFA_ALREADY_ENABLED);
    const secret = newTotpSecret();
    const pending: PendingSetup = {
      secret: this.crypto.encrypt(secret),
      expireAt: this.clock.nowMs() + MFA_SETUP_TTL_MS,
    };
    await this.store.set(Keys.mfaSetup(user.id), JSON.stringify(pending), MFA_SETUP_TTL_MS);
    return { secret, otpauthUrl: otpauthUrl(secret, user.username, this.config.MFA_ISSUER) };
  }

  /**
   * /sys/me/mfa/enable: the code proves the app holds the pending secret; TOTP on with 10 new
   * recovery codes, shown once. The step of this code counts as used. Wrong codes here are not
   * counted by the lock: nothing is gained by guessing a code of a secret one has just been shown.
   */
  async enable(caller: MfaCaller, code: string): Promise<{ recoveryCodes: string[] }> {
    const user = await this.accounts.get(caller.userId);
    return this.mutex.run(Keys.loginMutex(user.id), async () => {
      if (await this.enabled(user.id)) throw new AppException(ErrorCode.MFA_ALREADY_ENABLED);
      const raw = await this.store.get(Keys.mfaSetup(user.id));
      const pending = raw ? (JSON.parse(raw) as PendingSetup) : null;
      const secret = pending && pending.expireAt > this.clock.nowMs() ? this.secretOf(pending.secret, user.id) : null;
      const step = secret === null ? null : acceptedStep(secret, code, this.clock.nowMs(), null);
      if (step === null) throw new AppException(ErrorCode.MFA_CODE_INVALID);
      const recoveryCodes = newRecoveryCodes();
      await this.repo.enable(
        { userId: user.id, secret: pending!.secret, enabledTime: this.clock.now(), lastUsedStep: step },
        recoveryCodes.map((c) => this.crypto.hashRecoveryCode(c)),
      );
      await this.store.del(Keys.mfaSetup(user.id));
      await this.sessions.updateProfile(user.id, { mfaEnabled: true });
      await this.auditOwn('me.mfa.enable', caller, user);
      this.changed(user, 'enabled', caller.ip);
      return { recoveryCodes };
    });
  }

  /** /sys/me/mfa/disable: a TOTP or recovery code; FORBIDDEN while mfaMode = 2. */
  async disable(caller: MfaCaller, code: string): Promise<void> {
    if ((await this.strategy.loginStrategy()).mfaMode === MFA_MODE_REQUIRED)
      throw new AppException(ErrorCode.FORBIDDEN);
    await this.withProvenCode(caller, code, async (user) => {
      await this.repo.remove(user.id);
      await this.sessions.updateProfile(user.id, { mfaEnabled: false });
      await this.auditOwn('me.mfa.disable', caller, user);
      this.changed(user, 'disabled', caller.ip);
    });
  }

  /** /sys/me/mfa/recoveryCodes: a new set; the old one is void. */
  async regenerateRecoveryCodes(caller: MfaCaller, code: string): Promise<{ recoveryCodes: string[] }> {
    let recoveryCodes: string[] = [];
    await this.withProvenCode(caller, code, async (user) => {
      recoveryCodes = newRecoveryCodes();
      await this.repo.replaceRecoveryCodes(
        user.id,
        recoveryCodes.map((c) => this.crypto.hashRecoveryCode(c)),
      );
      await this.auditOwn('me.mfa.recoveryCodes', caller, user);
      this.changed(user, 'recoveryCodes', caller.ip);
    });
    return { recoveryCodes };
  }

  /** A user's own change of their second factor, by them on themselves (never with a code). */
  private auditOwn(action: AuditAction, caller: MfaCaller, user: UserEntity): Promise<void> {
    return this.audit.recordDone(action, {
      actorId: user.id,
      actorName: user.username,
      ip: caller.ip,
      targetId: user.id,
      targetName: user.username,
    });
  }

  /**
   * /sys/user/mfa/reset: TOTP, recovery codes and the other methods (passkeys) removed, the user's sessions ended, audited as
   * user.mfaReset; under the account's login mutex, like lock and disable. Not of one's own account
   * (as lock, disable and reset): that would remove one's own second factor without
   * the code that /sys/me/mfa/disable asks. Nor of a user holding codes the caller does not:
   * stripping a `*` holder's second factor would open the most valuable account.
   */
  async reset(id: string, actor: Actor): Promise<void> {
    const user = await this.accounts.get(id);
    this.protection.assertNotSelf(actor.id, user.id);
    await this.access.assertMayActOn(actor, [user]);
    await this.mutex.run(Keys.loginMutex(user.id), async () => {
      await this.repo.remove(user.id);
      for (const method of this.methods) await method.removeAll(user.id);
      await this.store.del(Keys.mfaSetup(user.id));
      await this.sessions.endAll(user.id);
    });
    this.changed(user, 'reset', actor.ip, { id: actor.id, name: actor.name });
    await this.audit.recordDone('user.mfaReset', { ...actedBy(actor), targetId: user.id, targetName: user.username });
  }

  /** Announces a change of the user's second factor (MfaChangedEvent), once it is done. */
  private changed(user: UserEntity, change: MfaChange, ip: string, by: MfaChangedEvent['by'] = null): void {
    this.events.emit(
      MfaChangedEvent.NAME,
      new MfaChangedEvent(user.id, user.username, change, ip, by, this.clock.now()),
    );
  }

  /**
   * /sys/me/reauth with a code: checked as the self-service codes are, logged with login
   * type `reauth`; `then` (marking the session) runs under the account's login mutex once it is right.
   */
  proveForReauth(caller: MfaCaller, code: string, then: () => Promise<void>): Promise<void> {
    return this.withProvenCode(caller, code, then, LoginTypes.REAUTH);
  }

  /**
   * The self-service checks of a code, as the old password of a password change is checked:
   * refused while locked; a wrong code logged `mfawrong` (login type `mfa`, or
   * `reauth` at /sys/me/reauth) and counted toward the account lock, and when it locks the
   * account, the session that tried ends. A stolen session gets at most maxFailureTimes guesses.
   */
  private async withProvenCode(
    caller: MfaCaller,
    code: string,
    then: (user: UserEntity) => Promise<void>,
    loginType = LoginTypes.MFA,
  ): Promise<void> {
    await this.mutex.run(Keys.loginMutex(caller.userId), async () => {
      const user = await this.accounts.withPassword(caller.userId);
      const attempt = { loginType, ip: caller.ip, userAgent: caller.userAgent, account: user.username };
      if (await this.states.stillLocked(user)) {
        await this.logs.record({
          ...attempt,
          userId: user.id,
          userName: user.name,
          status: LoginStatus.LOCKED,
          failure: ErrorCode.ACCOUNT_LOCKED,
        });
        throw new AppException(ErrorCode.ACCOUNT_LOCKED);
      }
      // Nothing enrolled (never, or reset meanwhile): no code can be right, and nothing is guessed.
      if (!(await this.enabled(user.id))) throw new AppException(ErrorCode.MFA_CODE_INVALID);
      const proof = await this.prove(user.id, code);
      if (proof !== 'totp' && proof !== 'recovery') {
        // Only a wrong code is a guess: an answer that proves nothing for another reason is not counted.
        if (proof === null) {
          const locked = await this.lockout.recordFailure({
            ...attempt,
            user,
            status: LoginStatus.MFAWRONG,
            reason: ErrorCode.MFA_CODE_INVALID,
          });
          if (locked) await this.sessions.end(caller.tokenHash, user.id);
        }
        throw new AppException(ErrorCode.MFA_CODE_INVALID);
      }
      await then(user);
    });
  }

  private secretOf(stored: string, userId: string): string | null {
    try {
      return this.crypto.decrypt(stored);
    } catch {
      this.logger.error(
        `the TOTP secret of user ${userId} does not decrypt (altered, or MFA_ENCRYPTION_KEY changed): refused`,
      );
      return null;
    }
  }
}
