import { Injectable } from '@nestjs/common';

import { AddedSecondFactor } from '../mfa/second-factors';
import { LoginStrategy } from '../strategy/strategy.types';
import { UserEntity } from '../user-account/user.entity';
import { OTP_CHANNELS, OTP_CODE } from './otp.types';
import { OtpCodes } from './otp-codes';
import { recipientOf } from './otp-send.service';

/**
 * A code sent for an mfaToken (POST /sys/otp/send { mfaToken, channel }) as the second login step:
 * available to a user with a mobile number or e-mail address on a channel mfaChannels allows.
 */
@Injectable()
export class OtpSecondFactor implements AddedSecondFactor {
  readonly name = 'otp';

  constructor(private readonly codes: OtpCodes) {}

  async available(user: UserEntity, login: LoginStrategy): Promise<boolean> {
    return OTP_CHANNELS.some((channel) => login.mfaChannels.includes(channel) && recipientOf(user, channel) !== null);
  }

  async prove(user: UserEntity, code: string): Promise<'right' | 'wrong' | null> {
    if (!OTP_CODE.test(code)) return null;
    const verdict = await this.codes.check('mfa', user.id, code);
    if (verdict.right) return 'right';
    return verdict.channel === null ? null : 'wrong';
  }
}
