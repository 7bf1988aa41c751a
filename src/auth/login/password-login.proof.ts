import type { ComparedPassword } from '../../user-account/password-proof.service';
import type { LoginChecks, LoginProof } from './login.service';

/**
 * The password way in, once PasswordProof found the password right: the match is confirmed against
 * the account as the tail read it (a hash changed meanwhile compares again, a lock meanwhile
 * refuses), then step 5, the disabled check. The lock was checked before the compare.
 */
export class PasswordLoginProof implements LoginProof {
  readonly name = 'password';

  constructor(private readonly compared: ComparedPassword) {}

  async prove(checks: LoginChecks): Promise<void> {
    await this.compared.confirm(checks.user);
    await checks.checkDisabled();
  }
}
