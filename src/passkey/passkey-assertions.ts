import { Injectable, Logger } from '@nestjs/common';
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';

import { Clock } from '../common/clock';
import type { PasskeyEntity } from './passkey.entity';
import { PasskeyRepository } from './passkey.repository';
import type { PasskeyChallenge } from './passkey-challenges';
import { base64url, webauthn } from './webauthn';

/** How an answer to a challenge came out: right, wrong (a failed proof the lock counts). */
export type AssertionOutcome = 'right' | 'wrong';

/** The credential id an answer names, when it is shaped like one (the rest is the library's to check). */
export function credentialIdOf(response: unknown): string | null {
  const id = (response as { id?: unknown } | null)?.id;
  return typeof id === 'string' && id.length > 0 && id.length <= 1400 && base64url.isValid(id) ? id : null;
}

/**
 * Checks one assertion against a stored passkey with @simplewebauthn/server and records the use.
 * Anything the library refuses is a wrong answer: a bad signature, another challenge, origin or RP
 * ID, a user handle of another user, and a signature counter that did not move forward — which
 * the library reports for a cloned authenticator, logged here as a warning naming the passkey.
 */
@Injectable()
export class PasskeyAssertions {
  private readonly logger = new Logger('Passkey');

  constructor(
    private readonly repo: PasskeyRepository,
    private readonly clock: Clock,
  ) {}

  async check(
    passkey: PasskeyEntity,
    response: unknown,
    challenge: PasskeyChallenge,
    requireUserVerification: boolean,
  ): Promise<AssertionOutcome> {
    const answer = response as AuthenticationResponseJSON;
    const handle = answer?.response?.userHandle;
    // A discoverable credential names its user: it must be the passkey's owner.
    if (handle !== undefined && handle !== base64url.fromUtf8(passkey.userId)) return 'wrong';
    let info;
    try {
      const verified = await webauthn().verifyAuthenticationResponse({
        response: answer,
        expectedChallenge: challenge.challenge,
        expectedOrigin: challenge.origins,
        expectedRPID: challenge.rpId,
        credential: {
          id: passkey.credentialId,
          publicKey: base64url.toBytes(passkey.publicKey),
          counter: Number(passkey.counter),
        },
        requireUserVerification,
      });
      if (!verified.verified) return 'wrong';
      info = verified.authenticationInfo;
    } catch (err) {
      if (/counter/i.test((err as Error)?.message ?? '')) {
        this.logger.warn(
          `passkey ${passkey.id} of user ${passkey.userId}: signature counter did not increase, possibly a cloned authenticator; refused`,
        );
      }
      return 'wrong';
    }
    const recorded = await this.repo.recordUse(passkey.id, {
      counter: info.newCounter,
      deviceType: info.credentialDeviceType,
      backedUp: info.credentialBackedUp,
      at: this.clock.now(),
    });
    // Deleted meanwhile, or a concurrent use with the same counter won: this one does not count.
    return recorded ? 'right' : 'wrong';
  }
}
