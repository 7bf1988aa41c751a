import { Injectable } from '@nestjs/common';

import { AppException } from '../common/app.exception';
import { ErrorCode } from '../common/error-code';
import { PiiCipher } from '../pii/pii-cipher';
import { StrategyService } from '../strategy/strategy.service';
import { OwnChangeRules } from '../strategy/strategy.types';
import { CommonPasswords } from './common-passwords/common-passwords';
import { PasswordHasher } from './password-hasher';
import { checkPasswordComplexity } from './password-policy';
import { UserEntity } from './user.entity';
import { UserRepository } from './user.repository';

/** Only values of 3 characters or more count; shorter ones would refuse too much. */
export const ACCOUNT_PART_MIN_LENGTH = 3;

/** The user name, the mobile number and the part of the e-mail before `@`, lower-cased, those of 3 characters or more. */
export function accountParts(user: Pick<UserEntity, 'username' | 'mobile' | 'email'>): string[] {
  const email = user.email ?? '';
  const at = email.lastIndexOf('@');
  return [user.username, user.mobile ?? '', at < 0 ? email : email.slice(0, at)]
    .map((value) => value.trim().toLowerCase())
    .filter((value) => [...value].length >= ACCOUNT_PART_MIN_LENGTH);
}

/** rejectAccountInPassword: the password contains one of the account's parts, ignoring case. */
export function containsAccount(password: string, user: Pick<UserEntity, 'username' | 'mobile' | 'email'>): boolean {
  const lower = password.toLowerCase();
  return accountParts(user).some((part) => lower.includes(part));
}

/**
 * The checks of a user's own new password: the six complexity rules, then account, common list
 * and history, in that order (PASSWORD_CONTAINS_ACCOUNT, PASSWORD_TOO_COMMON, PASSWORD_REUSED). The first
 * failure is reported.
 *
 * PASSWORD_REUSED costs BCrypt compares: the current hash and up to N − 1 previous ones, one after
 * another, so a new password's change takes N compares' time. One at a time rather than all at once: a change never takes more than one of the libuv
 * threads that logins need, and a reused current password, the usual case, costs one compare.
 */
@Injectable()
export class PasswordScreen {
  constructor(
    private readonly strategy: StrategyService,
    private readonly common: CommonPasswords,
    private readonly hasher: PasswordHasher,
    private readonly users: UserRepository,
    private readonly pii: PiiCipher,
  ) {}

  /** `user` with its password hash (UserRepository.withPassword), as it is now. */
  async checkOwn(user: UserEntity, password: string): Promise<void> {
    const rules = await this.strategy.passwordRules();
    checkPasswordComplexity(password, rules);
    await this.checkBeyondComplexity(user, password, rules);
  }

  /** Alone, in its order. */
  async checkBeyondComplexity(user: UserEntity, password: string, rules: OwnChangeRules): Promise<void> {
    // The mobile and e-mail opened only for this check (docs/security.md#personal-data).
    if (rules.rejectAccountInPassword && containsAccount(password, this.pii.revealed(user))) {
      throw new AppException(ErrorCode.PASSWORD_CONTAINS_ACCOUNT);
    }
    if (rules.rejectCommonPasswords && this.common.has(password)) {
      throw new AppException(ErrorCode.PASSWORD_TOO_COMMON);
    }
    const n = rules.passwordHistoryCount;
    if (n > 0) {
      // "The last N passwords, the current one included": the current hash and the N − 1 before it.
      const hashes = [user.password, ...(await this.users.previousPasswords(user.id, n - 1))];
      for (const hash of hashes) {
        if (await this.hasher.matches(password, hash)) throw new AppException(ErrorCode.PASSWORD_REUSED, { n });
      }
    }
  }
}

/** How many previous hashes sys_password_history keeps for a history count of `n`: the current one is the Nth. */
export const previousToKeep = (n: number): number => Math.max(0, n - 1);
