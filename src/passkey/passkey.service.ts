import { randomUUID } from 'node:crypto';

import { Injectable, OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { EventEmitter2 } from '@nestjs/event-emitter';
import type { PublicKeyCredentialCreationOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/server';

import { AuditAction, AuditLogService } from '../audit/audit-log.service';
import { AppException, validationFailed } from '../common/app.exception';
import { Clock } from '../common/clock';
import { ErrorCode } from '../common/error-code';
import { parseUserAgent } from '../login-log/user-agent';
import { MfaChange, MfaChangedEvent } from '../mfa/mfa.events';
import { MfaService } from '../mfa/mfa.service';
import { AddedSecondFactor, availableFactors, SECOND_FACTORS } from '../mfa/second-factors';
import { KeyedMutex } from '../store/keyed-mutex';
import { Keys } from '../store/keys';
import { StrategyService } from '../strategy/strategy.service';
import { MFA_MODE_REQUIRED } from '../strategy/strategy.types';
import type { UserEntity } from '../user-account/user.entity';
import { UserLookup } from '../user-account/user-lookup.service';
import { PasskeyEntity } from './passkey.entity';
import { credentialHashOf, PasskeyRepository } from './passkey.repository';
import { PASSKEY_CHALLENGE_TTL_MS, PasskeyChallenges } from './passkey-challenges';
import type { RelyingPartyOf } from './relying-party';
import { base64url, webauthn } from './webauthn';

/** Enough for every device a person uses; a cap keeps one account from filling the table. */
export const MAX_PASSKEYS_PER_USER = 20;

/** Who asks on /sys/me/passkey/*: the session's user, its session and where the request came from. */
export interface PasskeyCaller {
  userId: string;
  tokenHash: string;
  ip: string;
  userAgent: string;
}

export interface PasskeyRow {
  id: string;
  name: string;
  createTime: Date;
  lastUsedTime: Date | null;
}

/**
 * A user's own passkeys: registration (a challenge tied to the session that asked), the list,
 * rename and delete. Changes run under the account's login mutex, so they never interleave with a
 * login of that account, and are audited.
 */
@Injectable()
export class PasskeyService implements OnModuleInit {
  private added: AddedSecondFactor[] = [];

  constructor(
    private readonly repo: PasskeyRepository,
    private readonly challenges: PasskeyChallenges,
    private readonly accounts: UserLookup,
    private readonly audit: AuditLogService,
    private readonly mutex: KeyedMutex,
    private readonly clock: Clock,
    private readonly strategy: StrategyService,
    private readonly mfa: MfaService,
    private readonly events: EventEmitter2,
    private readonly modules: ModuleRef,
  ) {}

  onModuleInit() {
    this.added = SECOND_FACTORS.collect(this.modules);
  }

  async registrationOptions(
    caller: PasskeyCaller,
    rp: RelyingPartyOf,
    rpName: string,
  ): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const user = await this.accounts.get(caller.userId);
    const existing = await this.repo.ofUser(user.id);
    const options = await webauthn().generateRegistrationOptions({
      rpName,
      rpID: rp.rpId,
      userName: user.username,
      userID: new TextEncoder().encode(user.id),
      userDisplayName: user.name ?? user.username,
      timeout: PASSKEY_CHALLENGE_TTL_MS,
      attestationType: 'none',
      // An authenticator already registered is not registered twice.
      excludeCredentials: existing.map((p) => ({ id: p.credentialId, transports: transportsOf(p) })),
      // Discoverable, so that the login needs no account; verified, since a passkey counts as both factors.
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'required' },
    });
    await this.challenges.forRegistration(caller.tokenHash, {
      ...rp,
      challenge: options.challenge,
      userId: user.id,
      account: null,
    });
    return options;
  }

  async register(
    caller: PasskeyCaller,
    response: unknown,
    name: string | undefined,
  ): Promise<{ id: string; name: string }> {
    const challenge = await this.challenges.takeRegistration(caller.tokenHash);
    if (!challenge || challenge.userId !== caller.userId)
      throw validationFailed('validation.passkeyResponse', 'response');
    const info = await webauthn()
      .verifyRegistrationResponse({
        response: response as RegistrationResponseJSON,
        expectedChallenge: challenge.challenge,
        expectedOrigin: challenge.origins,
        expectedRPID: challenge.rpId,
        requireUserVerification: true,
      })
      .then(
        (v) => (v.verified ? v.registrationInfo : null),
        () => null,
      );
    if (!info) throw validationFailed('validation.passkeyResponse', 'response');
    return this.mutex.run(Keys.loginMutex(caller.userId), async () => {
      const user = await this.accounts.get(caller.userId);
      if ((await this.repo.countOf(user.id)) >= MAX_PASSKEYS_PER_USER) {
        throw validationFailed('validation.passkeyLimit', 'response', { max: MAX_PASSKEYS_PER_USER });
      }
      if (await this.repo.byCredentialId(info.credential.id)) {
        throw validationFailed('validation.passkeyResponse', 'response');
      }
      const row: PasskeyEntity = {
        id: randomUUID(),
        userId: user.id,
        name: name?.trim() || defaultName(caller.userAgent),
        credentialId: info.credential.id,
        credentialHash: credentialHashOf(info.credential.id),
        publicKey: base64url.fromBytes(info.credential.publicKey),
        counter: info.credential.counter,
        transports: (info.credential.transports ?? []).join(','),
        deviceType: info.credentialDeviceType,
        backedUp: info.credentialBackedUp,
        createTime: this.clock.now(),
        lastUsedTime: null,
      };
      await this.repo.insert(row);
      await this.auditOwn('me.passkey.add', caller, user, { passkey: row.id, name: row.name });
      this.changed(user, 'passkeyAdded', caller.ip);
      return { id: row.id, name: row.name };
    });
  }

  async list(userId: string): Promise<PasskeyRow[]> {
    return (await this.repo.ofUser(userId)).map(({ id, name, createTime, lastUsedTime }) => ({
      id,
      name,
      createTime,
      lastUsedTime,
    }));
  }

  async rename(caller: PasskeyCaller, id: string, name: string): Promise<void> {
    await this.mutex.run(Keys.loginMutex(caller.userId), async () => {
      const user = await this.accounts.get(caller.userId);
      const row = await this.repo.byId(user.id, id);
      if (!row || !(await this.repo.rename(user.id, id, name.trim()))) throw new AppException(ErrorCode.NOT_FOUND);
      await this.auditOwn('me.passkey.rename', caller, user, { passkey: id, old: row.name, new: name.trim() });
    });
  }

  /**
   * FORBIDDEN while mfaMode = 2 when it is the user's last second factor (as /sys/me/mfa/disable is):
   * no other passkey, no TOTP, and no factor another module adds that the user can give (a code to
   * a mobile or e-mail in mfaChannels), which counts as enrolled too.
   */
  async delete(caller: PasskeyCaller, id: string): Promise<void> {
    const login = await this.strategy.loginStrategy();
    await this.mutex.run(Keys.loginMutex(caller.userId), async () => {
      const user = await this.accounts.get(caller.userId);
      const row = await this.repo.byId(user.id, id);
      if (!row) throw new AppException(ErrorCode.NOT_FOUND);
      if (
        login.mfaMode === MFA_MODE_REQUIRED &&
        (await this.repo.countOf(user.id)) === 1 &&
        !(await this.mfa.enabled(user.id)) &&
        !(await availableFactors(this.added, user, login)).length
      ) {
        throw new AppException(ErrorCode.FORBIDDEN);
      }
      if (!(await this.repo.delete(user.id, id))) throw new AppException(ErrorCode.NOT_FOUND);
      await this.auditOwn('me.passkey.delete', caller, user, { passkey: id, name: row.name });
      this.changed(user, 'passkeyDeleted', caller.ip);
    });
  }

  /** Tells subscribers (webhooks) that how the user proves who they are changed. */
  private changed(user: UserEntity, change: MfaChange, ip: string): void {
    this.events.emit(
      MfaChangedEvent.NAME,
      new MfaChangedEvent(user.id, user.username, change, ip, null, this.clock.now()),
    );
  }

  private auditOwn(
    action: AuditAction,
    caller: PasskeyCaller,
    user: UserEntity,
    detail: Record<string, unknown>,
  ): Promise<void> {
    return this.audit.recordDone(action, {
      actorId: user.id,
      actorName: user.username,
      ip: caller.ip,
      targetId: user.id,
      targetName: user.username,
      detail,
    });
  }
}

export const transportsOf = (row: Pick<PasskeyEntity, 'transports'>) =>
  row.transports ? (row.transports.split(',') as AuthenticatorTransport[]) : undefined;

type AuthenticatorTransport = 'ble' | 'cable' | 'hybrid' | 'internal' | 'nfc' | 'smart-card' | 'usb';

/** A name the user can tell apart until they give one: the browser and system it was made on. */
function defaultName(userAgent: string): string {
  const { browser, os } = parseUserAgent(userAgent);
  return [browser, os].filter(Boolean).join(' / ').slice(0, 64) || 'Passkey';
}
