import { Injectable } from '@nestjs/common';

import { Clock } from '../common/clock';
import { Keys } from '../store/keys';
import { KvStore } from '../store/kv.store';
import { json, OneTimeKind, OneTimeStore } from '../store/one-time-store';
import type { RelyingPartyOf } from './relying-party';

export const PASSKEY_CHALLENGE_TTL_MS = 5 * 60_000;

/** What a challenge remembers until its one answer. */
export interface PasskeyChallenge extends RelyingPartyOf {
  /** The challenge as sent (base64url). */
  challenge: string;
  /** The user it was made for; null for a discoverable login (the answer names the user). */
  userId: string | null;
  /** The account as the client typed it at /sys/login/passkey/options (the login log's `account`). */
  account: string | null;
}

/** The handle is a bearer value (a challengeId, or an mfaToken): only its SHA-256 is kept. */
const CHALLENGES: OneTimeKind<PasskeyChallenge> = {
  key: Keys.passkeyChallenge,
  ttlMs: PASSKEY_CHALLENGE_TTL_MS,
  hashed: true,
  format: json<PasskeyChallenge>(),
};

/**
 * WebAuthn challenges in the shared one-time store: single use (consumed before the answer is
 * checked, so a replayed answer meets no challenge) and 5 minutes. A registration's is keyed by
 * the session that asked, a second step's by its mfaToken, a login's by a new challengeId.
 */
@Injectable()
export class PasskeyChallenges {
  private readonly store: OneTimeStore<PasskeyChallenge>;

  constructor(store: KvStore, clock: Clock) {
    this.store = new OneTimeStore(store, clock, CHALLENGES);
  }

  /** A login's challenge: answers the new challengeId. */
  forLogin(challenge: PasskeyChallenge): Promise<string> {
    return this.store.issue(challenge);
  }

  forRegistration(tokenHash: string, challenge: PasskeyChallenge): Promise<string> {
    return this.store.issue(challenge, `register:${tokenHash}`);
  }

  forSecondStep(mfaToken: string, challenge: PasskeyChallenge): Promise<string> {
    return this.store.issue(challenge, `mfa:${mfaToken}`);
  }

  takeLogin(challengeId: string): Promise<PasskeyChallenge | null> {
    return this.store.consume(challengeId);
  }

  takeRegistration(tokenHash: string): Promise<PasskeyChallenge | null> {
    return this.store.consume(`register:${tokenHash}`);
  }

  takeSecondStep(mfaToken: string): Promise<PasskeyChallenge | null> {
    return this.store.consume(`mfa:${mfaToken}`);
  }
}
