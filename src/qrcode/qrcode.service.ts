import { randomUUID } from 'node:crypto';

import { Injectable, Logger } from '@nestjs/common';

import { AuditLogService } from '../audit/audit-log.service';
import { LoginResult, LoginService, LoginWay } from '../auth/login/login.service';
import { AppException } from '../common/app.exception';
import { Clock } from '../common/clock';
import { ErrorCode, Locale } from '../common/error-code';
import { LoginTypes } from '../login-log/login-log.entity';
import { hashToken, SessionService } from '../session/session.service';
import { Keys } from '../store/keys';
import { KvStore } from '../store/kv.store';
import { json, OneTimeKind, OneTimeStore, TEXT } from '../store/one-time-store';
import { credentialStamp } from '../user-account/credential-stamp';
import { UserLookup } from '../user-account/user-lookup.service';
import { GrantOrigin, QrcodeLoginProof } from './qrcode-login.proof';

export const QRCODE_TTL_MS = 5 * 60_000;

/**
 * AUTH_QRCODE:{code} → the user id, keyed by the code itself because operators and tests read that
 * key by name. The origin is a second record under the same code.
 */
const CODES: OneTimeKind<string> = { key: Keys.qrcode, ttlMs: QRCODE_TTL_MS, hashed: false, format: TEXT };
const ORIGINS: OneTimeKind<GrantOrigin> = {
  key: Keys.qrcodeOrigin,
  ttlMs: QRCODE_TTL_MS,
  hashed: false,
  format: json<GrantOrigin>(),
};

/**
 * A logged-in device authorises a login elsewhere with a one-time code. The code is tied to the
 * session that generated it: it dies with that session and with any password change, so a stolen
 * or revoked session cannot mint access that outlives it (QrcodeLoginProof).
 */
@Injectable()
export class QrcodeService {
  private readonly logger = new Logger('Qrcode');
  private readonly codes: OneTimeStore<string>;
  private readonly origins: OneTimeStore<GrantOrigin>;

  constructor(
    store: KvStore,
    private readonly accounts: UserLookup,
    private readonly login: LoginService,
    private readonly audit: AuditLogService,
    private readonly sessions: SessionService,
    clock: Clock,
  ) {
    this.codes = new OneTimeStore(store, clock, CODES);
    this.origins = new OneTimeStore(store, clock, ORIGINS);
  }

  async generate(userId: string, tokenHash: string): Promise<{ code: string; expiresIn: number }> {
    const code = randomUUID();
    const { password, username } = await this.accounts.withPassword(userId);
    const origin: GrantOrigin = { tokenHash, credentialStamp: credentialStamp(password), username };
    // The origin first: a code whose origin is missing is refused, never accepted without its check.
    await this.origins.issue(origin, code);
    await this.codes.issue(userId, code);
    return { code, expiresIn: QRCODE_TTL_MS / 1000 };
  }

  async verify(code: string, ip: string, userAgent: string, locale: Locale): Promise<LoginResult> {
    // Single use: an atomic get-and-delete, so of concurrent verifies exactly one wins.
    const userId = await this.codes.consume(code);
    if (!userId) throw new AppException(ErrorCode.QRCODE_INVALID);
    const origin = await this.origins.consume(code);
    if (!origin) throw new AppException(ErrorCode.QRCODE_INVALID);
    const user = await this.accounts.get(userId).catch((err: unknown) => {
      // A user deleted since the code was made; a database that is away stays SERVICE_UNAVAILABLE.
      throw err instanceof AppException && err.code === ErrorCode.NOT_FOUND
        ? new AppException(ErrorCode.QRCODE_INVALID)
        : err;
    });
    // The proof checks the origin, then the disabled and locked state; then the tail every way in
    // shares, password expiry and first login included. No second factor: the authorising device
    // passed it.
    const way: LoginWay = {
      loginType: LoginTypes.QRCODE,
      account: user.username,
      ip,
      userAgent,
      locale,
      unusualIpCheck: false,
      secondFactorProven: true,
    };
    const result = await this.login.complete(user, way, new QrcodeLoginProof(this.sessions, origin, way));
    await this.recordAuthorisation(userId, origin, hashToken(result.accessToken!), ip);
    return result;
  }

  /**
   * The audit row of who authorised which new session — the session ids as the online list shows them
   * (the token's SHA-256, never a token). The login has happened: a failed audit write is logged, not
   * turned into a failed login whose token the client would never receive.
   */
  private async recordAuthorisation(
    userId: string,
    origin: GrantOrigin,
    newTokenId: string,
    ip: string,
  ): Promise<void> {
    try {
      await this.audit.record({
        action: 'qrcode.authorize',
        actorId: userId,
        actorName: origin.username,
        targetId: userId,
        targetName: origin.username,
        ip,
        detail: { authorizedBy: origin.tokenHash, session: newTokenId },
      });
    } catch (err) {
      this.logger.error(
        `could not audit the QR authorisation of user ${userId}: ${(err as { code?: string }).code ?? (err as Error).name}`,
      );
    }
  }
}
