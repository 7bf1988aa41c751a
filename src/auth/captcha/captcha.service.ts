import { randomUUID } from 'node:crypto';

import { Injectable } from '@nestjs/common';

import { AppException } from '../../common/app.exception';
import { Clock } from '../../common/clock';
import { ErrorCode } from '../../common/error-code';
import { AppConfig } from '../../config/app-config';
import { Keys } from '../../store/keys';
import { KvStore } from '../../store/kv.store';
import { OneTimeKind, OneTimeStore, TEXT } from '../../store/one-time-store';
import { captchaText, renderCaptcha } from './captcha.renderer';
import { LoginAttackService } from './login-attack.service';

export const CAPTCHA_TTL_MS = 3 * 60_000;

/** CAPTCHA:{imgId} → the text: the id is a public handle, not a secret, so it is the key as it is. */
const CAPTCHAS: OneTimeKind<string> = {
  key: Keys.captcha,
  ttlMs: CAPTCHA_TTL_MS,
  hashed: false,
  format: TEXT,
  generate: () => randomUUID(),
};

/**
 * On when CAPTCHA_ENABLED, or while the service is under attack with captchaUnderAttack on.
 * A captcha lives 3 minutes and is deleted by its first use, right or wrong, so that one image
 * buys one guess.
 * `img` is a PNG data URL (see captcha.renderer.ts); the text is compared case-insensitively.
 */
@Injectable()
export class CaptchaService {
  private readonly captchas: OneTimeStore<string>;

  constructor(
    private readonly config: AppConfig,
    store: KvStore,
    clock: Clock,
    private readonly attack: LoginAttackService,
  ) {
    this.captchas = new OneTimeStore(store, clock, CAPTCHAS);
  }

  /** CAPTCHA_ENABLED, or captchaUnderAttack while the service is under attack (LoginAttackService). */
  async enabled(): Promise<boolean> {
    return this.config.CAPTCHA_ENABLED || this.attack.underAttack();
  }

  async create(): Promise<{ enabled: boolean; imgId: string | null; img: string | null }> {
    if (!(await this.enabled())) return { enabled: false, imgId: null, img: null };
    const text = captchaText();
    const img = `data:image/png;base64,${(await renderCaptcha(text)).toString('base64')}`;
    const imgId = await this.captchas.issue(text);
    return { enabled: true, imgId, img };
  }

  /** Consumes the captcha whatever the outcome, so a text can be tried once only. */
  async verify(imgId: string | undefined, imgCode: string | undefined): Promise<void> {
    if (!(await this.enabled())) return;
    if (!imgId || !imgCode) throw new AppException(ErrorCode.CAPTCHA_INVALID);
    const expected = await this.captchas.consume(imgId);
    if (!expected || expected.toLowerCase() !== imgCode.trim().toLowerCase()) {
      throw new AppException(ErrorCode.CAPTCHA_INVALID);
    }
  }
}
