import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { credentialStamp, LoginResult, LoginService } from '../auth/login/login.service';
import { AppException } from '../common/app.exception';
import { ErrorCode, Locale } from '../common/error-code';
import { KvStore } from '../store/kv.store';
import { Keys } from '../store/keys';
import { UserAccountService } from '../user-account/user-account.service';

export const QRCODE_TTL_MS = 5 * 60_000;

/** What a code remembers besides its user (contract §6 keeps AUTH_QRCODE:{code} → user id). */
interface GrantOrigin {
  tokenHash: string;
  credentialStamp: string;
}

/**
 * Spec 2.7 / 4.4: a logged-in device authorises a login elsewhere with a one-time code. The code
 * is tied to the session that generated it (contract §11): it dies with that session and with
 * any password change, so a stolen or revoked session cannot mint access that outlives it.
 */
@Injectable()
export class QrcodeService {
  constructor(
    private readonly store: KvStore,
    private readonly accounts: UserAccountService,
    private readonly login: LoginService,
  ) {}

  async generate(userId: string, tokenHash: string): Promise<{ code: string; expiresIn: number }> {
    const code = randomUUID();
    const { password } = await this.accounts.withPassword(userId);
    const origin: GrantOrigin = { tokenHash, credentialStamp: credentialStamp(password) };
    // The origin first: a code whose origin is missing is refused, never accepted without its check.
    await this.store.set(Keys.qrcodeOrigin(code), JSON.stringify(origin), QRCODE_TTL_MS);
    await this.store.set(Keys.qrcode(code), userId, QRCODE_TTL_MS);
    return { code, expiresIn: QRCODE_TTL_MS / 1000 };
  }

  async verify(code: string, ip: string, userAgent: string, locale: Locale): Promise<LoginResult> {
    // Single use: an atomic get-and-delete, so of concurrent verifies exactly one wins.
    const userId = await this.store.getDel(Keys.qrcode(code));
    if (!userId) throw new AppException(ErrorCode.QRCODE_INVALID);
    const raw = await this.store.getDel(Keys.qrcodeOrigin(code));
    if (!raw) throw new AppException(ErrorCode.QRCODE_INVALID);
    const origin = JSON.parse(raw) as GrantOrigin;
    return this.login.loginByQrcode({ userId, ...origin, ip, userAgent, locale });
  }
}
