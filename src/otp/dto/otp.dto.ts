import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsString, Matches, MaxLength, MinLength, ValidateBy, ValidateIf } from 'class-validator';

import { Optional } from '../../common/optional';
import { ACCOUNT_PURPOSES, AccountPurpose, OTP_CHANNELS, OTP_CODE, OtpChannel } from '../otp.types';

const MFA_TOKEN = /^[A-Za-z0-9_-]+$/;
const byMfaToken = (o: { mfaToken?: unknown }) => o.mfaToken !== undefined;

/** The account form's fields have no place beside an mfaToken (whose login names the account). */
const NotWithMfaToken = () =>
  ValidateBy({
    name: 'notWithMfaToken',
    validator: {
      validate: (_value, args) => !byMfaToken(args?.object as { mfaToken?: unknown }),
      defaultMessage: () => '$property must be left out with mfaToken',
    },
  });

/** `{ account, channel, purpose, imgId?, imgCode? }`, or `{ mfaToken, channel }` for the second login step. */
export class OtpSendDto {
  @ApiPropertyOptional({ description: 'account name, mobile number or e-mail address (not with mfaToken)' })
  @ValidateIf((o: OtpSendDto) => !byMfaToken(o) || o.account !== undefined)
  @NotWithMfaToken()
  @IsString()
  @MinLength(1)
  @MaxLength(128)
  account?: string;

  @ApiProperty({ enum: OTP_CHANNELS, description: 'where the code goes: the mobile number or the e-mail address' })
  @IsIn(OTP_CHANNELS)
  channel: OtpChannel;

  @ApiPropertyOptional({
    enum: ACCOUNT_PURPOSES,
    description: 'login (POST /sys/login/otp) or reset (POST /sys/password/reset); not with mfaToken',
  })
  @ValidateIf((o: OtpSendDto) => !byMfaToken(o) || o.purpose !== undefined)
  @NotWithMfaToken()
  @IsIn(ACCOUNT_PURPOSES)
  purpose?: AccountPurpose;

  @ApiPropertyOptional({ description: 'from the login result: a code for its second step' })
  @Optional()
  @IsString()
  @MinLength(16)
  @MaxLength(128)
  @Matches(MFA_TOKEN, { message: '$property must be the mfaToken of the login result' })
  mfaToken?: string;

  @ApiPropertyOptional({ description: 'captcha id from /sys/captcha (with account)' })
  @Optional()
  @IsString()
  @MaxLength(64)
  imgId?: string;

  @ApiPropertyOptional({ description: 'the text shown in the captcha image (with account)' })
  @Optional()
  @IsString()
  @MaxLength(16)
  imgCode?: string;
}

/** POST /sys/password/forgot: a send with purpose reset. */
export class ForgotPasswordDto {
  @ApiProperty({ description: 'account name, mobile number or e-mail address' })
  @IsString()
  @MinLength(1)
  @MaxLength(128)
  account: string;

  @ApiProperty({ enum: OTP_CHANNELS })
  @IsIn(OTP_CHANNELS)
  channel: OtpChannel;

  /** Taken as /sys/otp/send takes it, so that the same body serves both routes; only `reset` here. */
  @ApiPropertyOptional({ enum: ['reset'], description: 'reset, as /sys/otp/send takes it (may be left out)' })
  @Optional()
  @IsIn(['reset'])
  purpose?: 'reset';

  @ApiPropertyOptional({ description: 'captcha id from /sys/captcha' })
  @Optional()
  @IsString()
  @MaxLength(64)
  imgId?: string;

  @ApiPropertyOptional({ description: 'the text shown in the captcha image' })
  @Optional()
  @IsString()
  @MaxLength(16)
  imgCode?: string;
}

export class OtpSendResultDto {
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'where the code went, masked (138****5678, a***@example.com); null when none was sent',
  })
  sentTo: string | null;
}

export class OtpLoginDto {
  @ApiProperty({ description: 'account name, mobile number or e-mail address' })
  @IsString()
  @MinLength(1)
  @MaxLength(128)
  account: string;

  @ApiProperty({ description: 'the 6-digit code sent for purpose login', example: '123456' })
  @IsString()
  @Matches(OTP_CODE, { message: '$property must be 6 digits' })
  code: string;
}

export class PasswordResetDto {
  @ApiProperty({ description: 'account name, mobile number or e-mail address' })
  @IsString()
  @MinLength(1)
  @MaxLength(128)
  account: string;

  @ApiProperty({ description: 'the 6-digit code sent for purpose reset', example: '123456' })
  @IsString()
  @Matches(OTP_CODE, { message: '$property must be 6 digits' })
  code: string;

  @ApiProperty({
    description:
      'ciphertext under /sys/publicKey (RSA-OAEP-256, base64; SM2 C1C3C2, hex, under CRYPTO_SUITE=gm) of the new password',
  })
  @IsString()
  @MinLength(1)
  @MaxLength(1024)
  newPass: string;
}
