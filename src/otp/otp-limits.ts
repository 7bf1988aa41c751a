import { createHash } from 'node:crypto';

import { Injectable } from '@nestjs/common';

import { AppException } from '../common/app.exception';
import { ErrorCode } from '../common/error-code';
import { Keys } from '../store/keys';
import { KvStore } from '../store/kv.store';
import { OTP_SENDS_PER_DAY, OTP_SENDS_PER_MINUTE } from './otp.types';

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;

/** An identifier as counted: NFKC, trimmed, lower case, then hashed (no number or address in a key name). */
export function countedId(value: string): string {
  return createHash('sha256').update(value.normalize('NFKC').trim().toLowerCase()).digest('hex');
}

/**
 * The send limits of one-time codes, per account as typed and per recipient: fixed windows of a
 * minute and a day counted with the store's atomic increment, so that parallel sends on every
 * instance sharing the store together get no more than the limit. A send refused by the minute
 * is not counted by the day.
 */
@Injectable()
export class OtpLimits {
  constructor(private readonly store: KvStore) {}

  /** Counts one send for `id` (a countedId); RATE_LIMITED beyond a limit. */
  async take(scope: 'account' | 'recipient', id: string): Promise<void> {
    const minute = await this.store.incrWithTtl(Keys.otpSends(scope, 'minute', id), MINUTE_MS);
    if (minute.count > OTP_SENDS_PER_MINUTE) throw new AppException(ErrorCode.RATE_LIMITED);
    const day = await this.store.incrWithTtl(Keys.otpSends(scope, 'day', id), DAY_MS);
    if (day.count > OTP_SENDS_PER_DAY) throw new AppException(ErrorCode.RATE_LIMITED);
  }
}
