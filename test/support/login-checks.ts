import type { LoginChecks } from '../../src/auth/login/login.service';
import { AppException } from '../../src/common/app.exception';
import { ErrorCode } from '../../src/common/error-code';
import type { UserEntity } from '../../src/user-account/user.entity';

/** A user as a proof's unit spec needs it; `over` sets what the case is about. */
export function proofUser(over: Partial<UserEntity> = {}): UserEntity {
  return {
    id: 'u1',
    username: 'zhangsan',
    name: '张三',
    mobile: null,
    email: null,
    password: 'hash:Right-pass1',
    passwordUpdateTime: null,
    createTime: new Date('2025-01-01T00:00:00Z'),
    locked: false,
    unlockTime: null,
    disabled: false,
    failureResetTime: null,
    lastLoginTime: null,
    ...over,
  };
}

/**
 * The login tail's checks, for a proof's unit spec: each records its name in `calls` and refuses
 * as the tail would (ACCOUNT_LOCKED, ACCOUNT_DISABLED) when the user is locked or disabled.
 */
export function fakeChecks(user: UserEntity, calls: string[] = []): LoginChecks {
  return {
    user,
    checkLock: async () => {
      calls.push('checkLock');
      if (user.locked) throw new AppException(ErrorCode.ACCOUNT_LOCKED);
    },
    checkDisabled: async () => {
      calls.push('checkDisabled');
      if (user.disabled) throw new AppException(ErrorCode.ACCOUNT_DISABLED);
    },
    fail: async (status, code) => {
      calls.push(`fail:${status}`);
      throw new AppException(code);
    },
  };
}
