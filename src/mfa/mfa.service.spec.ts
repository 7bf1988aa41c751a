import { codeOf } from '../../test/support/code-of';
import { FakeClock } from '../../test/support/fake-clock';
import { proofUser } from '../../test/support/login-checks';
import { unit } from '../../test/support/unit';
import { ErrorCode } from '../common/error-code';
import { STANDARD_SUITE } from '../crypto/crypto-suite';
import type { LoginAttempt } from '../login-log/login-log.service';
import { KeyedMutex } from '../store/keyed-mutex';
import { MemoryKvStore } from '../store/memory-kv.store';
import { LoginStrategy, MFA_MODE_REQUIRED } from '../strategy/strategy.types';
import type { WrongProof } from '../user-account/lockout.service';
import type { UserEntity } from '../user-account/user.entity';
import { RecoveryCodeEntity, UserMfaEntity } from './mfa.entities';
import type { MfaChangedEvent } from './mfa.events';
import { MfaRepository } from './mfa.repository';
import { MfaCaller, MfaService } from './mfa.service';
import { MfaCrypto } from './mfa-crypto';
import { stepAt, TOTP_PERIOD_S, totpCode } from './totp';

/** sys_user_mfa and sys_user_recovery_code as maps, with the conditional writes of the real one. */
class FakeMfaRows implements Pick<MfaRepository, keyof MfaRepository> {
  enrolments = new Map<string, UserMfaEntity>();
  codes: Omit<RecoveryCodeEntity, 'id'>[] = [];

  async enrolment(userId: string) {
    const row = this.enrolments.get(userId);
    return row ? { ...row } : null;
  }
  async secretsAfter(after: string, limit: number) {
    return [...this.enrolments.values()].filter((r) => r.userId > after).slice(0, limit);
  }
  async replaceSecret(userId: string, was: string, now: string) {
    const row = this.enrolments.get(userId);
    if (row?.secret !== was) return false;
    row.secret = now;
    return true;
  }
  async enabledAmong(userIds: string[]) {
    return new Set(userIds.filter((id) => this.enrolments.has(id)));
  }
  async enable(row: UserMfaEntity, codeHashes: string[]) {
    this.enrolments.set(row.userId, { ...row });
    await this.replaceRecoveryCodes(row.userId, codeHashes);
  }
  async claimStep(userId: string, step: number) {
    const row = this.enrolments.get(userId);
    if (!row || (row.lastUsedStep !== null && Number(row.lastUsedStep) >= step)) return false;
    row.lastUsedStep = step;
    return true;
  }
  async useRecoveryCode(userId: string, codeHash: string, at: Date) {
    const code = this.codes.find((c) => c.userId === userId && c.codeHash === codeHash && !c.usedTime);
    if (code) code.usedTime = at;
    return !!code;
  }
  async replaceRecoveryCodes(userId: string, codeHashes: string[]) {
    this.codes = [
      ...this.codes.filter((c) => c.userId !== userId),
      ...codeHashes.map((codeHash) => ({ userId, codeHash, usedTime: null })),
    ];
  }
  async remove(userId: string) {
    this.enrolments.delete(userId);
    this.codes = this.codes.filter((c) => c.userId !== userId);
  }
}

describe('MfaService (enrolment and the second-factor code check)', () => {
  let clock: FakeClock;
  let store: MemoryKvStore;
  let rows: FakeMfaRows;
  let mfa: MfaService;
  let user: UserEntity;
  let policy: LoginStrategy;
  /** What the services around saw, in order: profile changes, sessions ended, failures, log records. */
  let seen: string[];
  /** recordFailure answers this: whether the failure locked the account. */
  let failureLocks: boolean;
  const caller: MfaCaller = { userId: 'u1', tokenHash: 'tok1', ip: '10.0.0.1', userAgent: 'test' };

  const codeNow = (secret: string, stepsLater = 0) => totpCode(secret, stepAt(clock.nowMs()) + stepsLater);
  /** Six digits that no step now accepted (the current one, one either side) has as its code. */
  const wrongCode = (secret: string) => {
    const window = [-1, 0, 1].map((d) => codeNow(secret, d));
    return ['000000', '000001', '000002', '000003'].find((c) => !window.includes(c))!;
  };
  /** Setup and enable with the current code: the secret and the recovery codes shown. */
  const enrol = async () => {
    const { secret } = await mfa.setup('u1');
    const { recoveryCodes } = await mfa.enable(caller, codeNow(secret));
    seen = [];
    return { secret, recoveryCodes };
  };

  beforeEach(async () => {
    clock = new FakeClock(new Date('2025-06-01T00:00:00Z'));
    store = new MemoryKvStore(clock);
    rows = new FakeMfaRows();
    user = proofUser();
    policy = new LoginStrategy();
    seen = [];
    failureLocks = false;
    const { service: crypto } = await unit(MfaCrypto, {
      AppConfig: { MFA_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64') },
      CRYPTO_SUITE: STANDARD_SUITE,
    });
    await crypto.onModuleInit();
    ({ service: mfa } = await unit(MfaService, {
      MfaRepository: rows,
      MfaCrypto: crypto,
      KvStore: store,
      Clock: clock,
      KeyedMutex: new KeyedMutex(store),
      UserLookup: { get: async () => ({ ...user }), withPassword: async () => ({ ...user }) },
      AccountStateService: { stillLocked: async (u: UserEntity) => u.locked },
      LockoutService: {
        recordFailure: async (w: WrongProof) => {
          seen.push(`failure:${w.status}`);
          return failureLocks;
        },
      },
      LoginLogService: {
        record: async (a: LoginAttempt) => {
          seen.push(`log:${a.status}`);
          return '1';
        },
      },
      SessionService: {
        updateProfile: async (_id: string, p: object) => void seen.push(`profile:${JSON.stringify(p)}`),
        end: async (tokenHash: string) => void seen.push(`end:${tokenHash}`),
      },
      StrategyService: { loginStrategy: async () => policy },
      AuditLogService: { recordDone: async (action: string) => void seen.push(`audit:${action}`) },
      AppConfig: { MFA_ISSUER: 'LPS' },
      EventEmitter2: { emit: (_name: string, e: MfaChangedEvent) => void seen.push(`changed:${e.change}`) },
    }));
  });

  afterEach(() => store.close());

  it('enrols with a code of the secret just shown: ten recovery codes, once, and the session learns it', async () => {
    const { secret, otpauthUrl } = await mfa.setup('u1');
    expect(otpauthUrl).toContain(`secret=${secret}`);
    expect(otpauthUrl).toContain('issuer=LPS');
    expect(await mfa.enabled('u1')).toBe(false);
    const { recoveryCodes } = await mfa.enable(caller, codeNow(secret));
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    expect(await mfa.enabled('u1')).toBe(true);
    expect(seen).toEqual(['profile:{"mfaEnabled":true}', 'audit:me.mfa.enable', 'changed:enabled']);
    // The secret is kept encrypted, the recovery codes only as hashes.
    expect(rows.enrolments.get('u1')!.secret).not.toContain(secret);
    expect(rows.codes.map((c) => c.codeHash)).not.toContain(recoveryCodes[0]);
  });

  it('refuses to enable with a wrong code, or once the setup is older than ten minutes', async () => {
    const { secret } = await mfa.setup('u1');
    expect(await codeOf(mfa.enable(caller, wrongCode(secret)))).toBe(ErrorCode.MFA_CODE_INVALID);
    clock.advanceMinutes(10);
    expect(await codeOf(mfa.enable(caller, codeNow(secret)))).toBe(ErrorCode.MFA_CODE_INVALID);
    expect(await mfa.enabled('u1')).toBe(false);
    expect(seen).toEqual([]);
  });

  it('refuses a second setup while enrolled', async () => {
    await enrol();
    expect(await codeOf(mfa.setup('u1'))).toBe(ErrorCode.MFA_ALREADY_ENABLED);
  });

  it('accepts the current code once; sent again it is a replay, not a guess; the next one is accepted', async () => {
    const { secret } = await enrol();
    clock.advance(TOTP_PERIOD_S * 1000);
    const code = codeNow(secret);
    expect(await mfa.prove('u1', code)).toBe('totp');
    expect(await mfa.prove('u1', code)).toBe('replay');
    clock.advance(TOTP_PERIOD_S * 1000);
    expect(await mfa.prove('u1', codeNow(secret))).toBe('totp');
  });

  it('treats the code that enabled as used', async () => {
    const { secret } = await mfa.setup('u1');
    const code = codeNow(secret);
    await mfa.enable(caller, code);
    expect(await mfa.prove('u1', code)).toBe('replay');
  });

  it('refuses a wrong code and one of a minute ago, and any code of a user not enrolled', async () => {
    const { secret } = await enrol();
    const old = codeNow(secret);
    clock.advanceMinutes(2);
    expect(await mfa.prove('u1', wrongCode(secret))).toBeNull();
    expect(await mfa.prove('u1', old)).toBeNull();
    expect(await mfa.prove('u2', codeNow(secret))).toBeNull();
  });

  it('accepts each recovery code once, typed in capitals or without its hyphen', async () => {
    const { recoveryCodes } = await enrol();
    expect(await mfa.prove('u1', recoveryCodes[0].toUpperCase())).toBe('recovery');
    expect(await mfa.prove('u1', recoveryCodes[0])).toBeNull();
    expect(await mfa.prove('u1', recoveryCodes[1].replace('-', ''))).toBe('recovery');
  });

  it('counts a wrong code toward the lock, and ends the session that tried when it locks', async () => {
    const { secret } = await enrol();
    clock.advanceMinutes(2);
    expect(await codeOf(mfa.disable(caller, wrongCode(secret)))).toBe(ErrorCode.MFA_CODE_INVALID);
    failureLocks = true;
    expect(await codeOf(mfa.disable(caller, wrongCode(secret)))).toBe(ErrorCode.MFA_CODE_INVALID);
    expect(seen).toEqual(['failure:mfawrong', 'failure:mfawrong', 'end:tok1']);
    expect(await mfa.enabled('u1')).toBe(true);
  });

  it('does not count a replayed right code as a guess', async () => {
    const { secret } = await enrol();
    clock.advance(TOTP_PERIOD_S * 1000);
    const code = codeNow(secret);
    expect(await mfa.prove('u1', code)).toBe('totp');
    expect(await codeOf(mfa.disable(caller, code))).toBe(ErrorCode.MFA_CODE_INVALID);
    expect(seen).toEqual([]);
  });

  it('disables with a right code, and the session learns it', async () => {
    const { secret } = await enrol();
    clock.advance(TOTP_PERIOD_S * 1000);
    await mfa.disable(caller, codeNow(secret));
    expect(await mfa.enabled('u1')).toBe(false);
    expect(seen).toEqual(['profile:{"mfaEnabled":false}', 'audit:me.mfa.disable', 'changed:disabled']);
  });

  it('refuses to disable while the second factor is required, whatever the code', async () => {
    const { recoveryCodes } = await enrol();
    policy.mfaMode = MFA_MODE_REQUIRED;
    expect(await codeOf(mfa.disable(caller, recoveryCodes[0]))).toBe(ErrorCode.FORBIDDEN);
    expect(await mfa.enabled('u1')).toBe(true);
  });

  it('refuses a locked account before looking at the code, and logs it as locked', async () => {
    const { recoveryCodes } = await enrol();
    user = proofUser({ locked: true });
    expect(await codeOf(mfa.disable(caller, recoveryCodes[0]))).toBe(ErrorCode.ACCOUNT_LOCKED);
    expect(seen).toEqual(['log:locked']);
    expect(await mfa.prove('u1', recoveryCodes[0])).toBe('recovery');
  });

  it('voids the old recovery codes when new ones are made', async () => {
    const { recoveryCodes: old } = await enrol();
    const { recoveryCodes } = await mfa.regenerateRecoveryCodes(caller, old[0]);
    expect(await mfa.prove('u1', old[1])).toBeNull();
    expect(await mfa.prove('u1', recoveryCodes[0])).toBe('recovery');
    expect(seen).toEqual(['audit:me.mfa.recoveryCodes', 'changed:recoveryCodes']);
  });
});
