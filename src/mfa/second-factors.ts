import { ExtensionPoint } from '../common/extension-point';
import type { LoginStrategy } from '../strategy/strategy.types';
import type { UserEntity } from '../user-account/user.entity';

/**
 * A second factor a module adds beside TOTP (a code sent by SMS or e-mail, src/otp): whether the
 * user can give it under the strategy, and the proof of a code given at /sys/login/mfa.
 */
export interface AddedSecondFactor {
  readonly name: string;
  /** The user can give this factor now: counts as enrolled for mfaMode 2. */
  available(user: UserEntity, login: LoginStrategy): Promise<boolean>;
  /** `right` spends what it proved; `wrong` is a miss to count; null: nothing of this factor to check the code against. */
  prove(user: UserEntity, code: string): Promise<'right' | 'wrong' | null>;
}

export const SECOND_FACTORS = new ExtensionPoint<AddedSecondFactor>('SECOND_FACTORS');

/** The factors of `added` the user can give under `login` (each asked once, together). */
export async function availableFactors(
  added: readonly AddedSecondFactor[],
  user: UserEntity,
  login: LoginStrategy,
): Promise<AddedSecondFactor[]> {
  const available = await Promise.all(added.map((f) => f.available(user, login)));
  return added.filter((_, i) => available[i]);
}
