import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import svgCaptcha from 'svg-captcha';
import { AppException } from '../../common/app.exception';
import { ErrorCode } from '../../common/error-code';
import { AppConfig } from '../../config/app-config';
import { KvStore } from '../../store/kv.store';
import { Keys } from '../../store/keys';

export const CAPTCHA_TTL_MS = 3 * 60_000;

/** Spec 4.1 step 1 / 8: a captcha lives 3 minutes and is deleted by its first use. */
@Injectable()
export class CaptchaService {
  constructor(private readonly config: AppConfig, private readonly store: KvStore) {}

  get enabled(): boolean {
    return this.config.CAPTCHA_ENABLED;
  }

  async create(): Promise<{ enabled: boolean; imgId: string | null; img: string | null }> {
    if (!this.enabled) return { enabled: false, imgId: null, img: null };
    const { text, data } = svgCaptcha.create({ size: 4, noise: 2, ignoreChars: '0oO1iIlL', color: true });
    const imgId = randomUUID();
    await this.store.set(Keys.captcha(imgId), text, CAPTCHA_TTL_MS);
    return { enabled: true, imgId, img: `data:image/svg+xml;base64,${Buffer.from(data).toString('base64')}` };
  }

  /** Consumes the captcha whatever the outcome, so a text can be tried once only. */
  async verify(imgId: string | undefined, imgCode: string | undefined): Promise<void> {
    if (!this.enabled) return;
    if (!imgId || !imgCode) throw new AppException(ErrorCode.CAPTCHA_INVALID);
    const expected = await this.store.getDel(Keys.captcha(imgId));
    if (!expected || expected.toLowerCase() !== imgCode.trim().toLowerCase()) {
      throw new AppException(ErrorCode.CAPTCHA_INVALID);
    }
  }
}
