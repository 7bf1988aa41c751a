import { Injectable } from '@nestjs/common';

import { validationFailed } from '../common/app.exception';
import type { MethodOutcome, SecondFactorMethod } from '../mfa/second-factor-methods';
import { PasskeyRepository } from './passkey.repository';
import { credentialIdOf, PasskeyAssertions } from './passkey-assertions';
import { PasskeyChallenges } from './passkey-challenges';
import { isAssertionShape } from './webauthn-shape';

/**
 * A passkey as the second factor: a user with one counts as enrolled for mfaMode 2, it can
 * finish /sys/login/mfa (body field `passkey`) and the administrator's reset removes it.
 */
@Injectable()
export class PasskeySecondFactor implements SecondFactorMethod {
  readonly name = 'passkey';

  constructor(
    private readonly repo: PasskeyRepository,
    private readonly challenges: PasskeyChallenges,
    private readonly assertions: PasskeyAssertions,
  ) {}

  async enrolled(userId: string): Promise<boolean> {
    return (await this.repo.countOf(userId)) > 0;
  }

  /** No challenge (used, expired, never asked for): not a guess. A passkey of anyone else: wrong. */
  async prove(userId: string, mfaToken: string, answer: unknown): Promise<MethodOutcome> {
    // Malformed input is no guess: refused as such, the challenge kept for a proper answer.
    if (!isAssertionShape(answer)) throw validationFailed('validation.passkeyShape', 'passkey');
    const challenge = await this.challenges.takeSecondStep(mfaToken);
    if (!challenge || challenge.userId !== userId) return 'stale';
    const credentialId = credentialIdOf(answer);
    const passkey = credentialId ? await this.repo.byCredentialId(credentialId) : null;
    if (!passkey || passkey.userId !== userId) return 'wrong';
    return this.assertions.check(passkey, answer, challenge, false);
  }

  removeAll(userId: string): Promise<void> {
    return this.repo.deleteAll(userId);
  }
}
