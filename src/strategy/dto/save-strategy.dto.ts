import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';

import { FormBool, FormInt } from '../../common/form-body';
import { Optional } from '../../common/optional';
import { LoginStrategy, MFA_CHANNELS, MfaChannel, UserStrategy } from '../strategy.types';

/**
 * An integer setting accepted from `min` to `max`: the validator's range and the OpenAPI document's
 * (which the console's strategy page reads) come from this one place.
 */
const IntRange = (min: number, max: number) =>
  applyDecorators(Max(max), Min(min), IsInt(), ApiPropertyOptional({ minimum: min, maximum: max }));

/**
 * Every field's default in the OpenAPI document, taken from the setting group's own defaults, so the
 * document (and the console's strategy page, which shows it) cannot drift from what an unsaved group holds.
 */
const DefaultsFrom =
  <D extends object>(defaults: D) =>
  (target: new () => { [K in keyof D]?: unknown }) => {
    for (const [key, value] of Object.entries(defaults)) ApiPropertyOptional({ default: value })(target.prototype, key);
  };

const CHANNELS = /^\s*((email|sms|site)\s*(,\s*(email|sms|site)\s*)*)?$/;
const normaliseChannels = () =>
  Transform(({ value }) =>
    typeof value === 'string' && CHANNELS.test(value)
      ? [
          ...new Set(
            value
              .split(',')
              .map((s) => s.trim())
              .filter(Boolean),
          ),
        ].join(',')
      : value,
  );
const channelMessage = { message: '$property must be a comma-separated list of email, sms, site' };

/** Fields, all optional: a save is partial. */
@DefaultsFrom(new LoginStrategy())
export class SaveLoginStrategyDto {
  @ApiPropertyOptional({ description: 'Validity of a normal token, minutes' })
  @Optional()
  @FormInt()
  @IntRange(1, 43200)
  sessionExpireMinutes?: number;

  @ApiPropertyOptional({ description: 'Validity of a temporary token, minutes' })
  @Optional()
  @FormInt()
  @IntRange(1, 1440)
  tempSessionExpireMinutes?: number;

  @ApiPropertyOptional({ description: 'Duration of a lock, minutes' })
  @Optional()
  @FormInt()
  @IntRange(1, 525600)
  lockMinutes?: number;

  @ApiPropertyOptional({ description: 'Wrong passwords that lock the account' })
  @Optional()
  @FormInt()
  @IntRange(1, 1000)
  maxFailureTimes?: number;

  @ApiPropertyOptional({ description: 'Failure counting window, hours' })
  @Optional()
  @FormInt()
  @IntRange(1, 8760)
  maxFailureInterval?: number;

  @ApiPropertyOptional({ description: 'Channels for a wrong password: email,sms,site', example: 'email,site' })
  @Optional()
  @normaliseChannels()
  @MaxLength(32)
  @Matches(CHANNELS, channelMessage)
  sendMsgWhenErrorLogin?: string;

  @ApiPropertyOptional({ description: 'Channels for an unusual IP: email,sms,site', example: 'site' })
  @Optional()
  @normaliseChannels()
  @MaxLength(32)
  @Matches(CHANNELS, channelMessage)
  sendMsgWhenErrorIp?: string;

  @ApiPropertyOptional({ description: '1 tip, 2 force change, 3 refuse', enum: [1, 2, 3] })
  @Optional()
  @FormInt()
  @IsInt()
  @IsIn([1, 2, 3])
  loginStrategyWhenExpire?: 1 | 2 | 3;

  @ApiPropertyOptional()
  @Optional()
  @FormBool()
  @IsBoolean()
  bindIp?: boolean;

  @ApiPropertyOptional()
  @Optional()
  @FormBool()
  @IsBoolean()
  multiOnline?: boolean;

  @ApiPropertyOptional({
    description: 'Second factor: 0 off, 1 users who enabled TOTP, 2 every user must',
    enum: [0, 1, 2],
  })
  @Optional()
  @FormInt()
  @IsInt()
  @IsIn([0, 1, 2])
  mfaMode?: 0 | 1 | 2;

  @ApiPropertyOptional({ description: 'Absolute session lifetime, hours after login; 0 = no limit' })
  @Optional()
  @FormInt()
  @IntRange(0, 720)
  sessionMaxHours?: number;

  @ApiPropertyOptional({ description: 'With multiOnline: live sessions per user, the oldest kicked out; 0 = no limit' })
  @Optional()
  @FormInt()
  @IntRange(0, 100)
  maxSessionsPerUser?: number;

  @ApiPropertyOptional({ description: 'Minutes a password login or /sys/me/reauth counts as a fresh proof' })
  @Optional()
  @FormInt()
  @IntRange(1, 60)
  reauthMinutes?: number;

  @ApiPropertyOptional({
    description: 'Operations needing a permission code other than a list / info one also need a fresh proof',
  })
  @Optional()
  @FormBool()
  @IsBoolean()
  reauthForAdmin?: boolean;

  @ApiPropertyOptional({ description: 'Passwordless login with a passkey (/sys/login/passkey/*)' })
  @Optional()
  @FormBool()
  @IsBoolean()
  passkeyLogin?: boolean;

  @ApiPropertyOptional({ description: 'Logging in with a one-time code sent by SMS or e-mail (POST /sys/login/otp)' })
  @Optional()
  @FormBool()
  @IsBoolean()
  otpLogin?: boolean;

  @ApiPropertyOptional({
    description:
      'What may finish the second login step: totp (TOTP or recovery code), sms, email (a code sent there); at least one',
    type: [String],
    enum: MFA_CHANNELS,
    example: ['totp', 'sms'],
  })
  @Optional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MFA_CHANNELS.length)
  @ArrayUnique()
  @IsIn(MFA_CHANNELS, { each: true })
  mfaChannels?: MfaChannel[];

  @ApiPropertyOptional({
    description:
      'Every login needs a captcha while failed logins across the service reach attackFailuresPerMinute, until they stay below it for 5 minutes',
  })
  @Optional()
  @FormBool()
  @IsBoolean()
  captchaUnderAttack?: boolean;

  @ApiPropertyOptional({ description: 'Failed logins a minute, across the service, that start the adaptive captcha' })
  @Optional()
  @FormInt()
  @IntRange(1, 1_000_000)
  attackFailuresPerMinute?: number;
}

/** Fields, all optional. */
@DefaultsFrom(new UserStrategy())
export class SaveUserStrategyDto {
  @ApiPropertyOptional({ description: 'Password validity, days; 0 never expires' })
  @Optional()
  @FormInt()
  @IntRange(0, 3650)
  passwordExpireDays?: number;

  @ApiPropertyOptional({ description: 'Reminder this many days before expiry' })
  @Optional()
  @FormInt()
  @IntRange(0, 365)
  expireNotifyDays?: number;

  @ApiPropertyOptional()
  @Optional()
  @FormInt()
  @IntRange(0, 72)
  minPasswordLength?: number;

  @ApiPropertyOptional({ description: '0 = no maximum; at most 72 (BCrypt reads 72 bytes)' })
  @Optional()
  @FormInt()
  @IntRange(0, 72)
  maxPasswordLength?: number;

  @ApiPropertyOptional()
  @Optional()
  @FormBool()
  @IsBoolean()
  includeLowerCase?: boolean;

  @ApiPropertyOptional()
  @Optional()
  @FormBool()
  @IsBoolean()
  includeUpperCase?: boolean;

  @ApiPropertyOptional()
  @Optional()
  @FormBool()
  @IsBoolean()
  includeNumber?: boolean;

  @ApiPropertyOptional()
  @Optional()
  @FormBool()
  @IsBoolean()
  includeSymbol?: boolean;

  @ApiPropertyOptional()
  @Optional()
  @FormBool()
  @IsBoolean()
  forceUpdatePassword?: boolean;

  @ApiPropertyOptional({
    description: "A user's own new password may not equal any of their last N, the current one included; 0 off",
  })
  @Optional()
  @FormInt()
  @IntRange(0, 24)
  passwordHistoryCount?: number;

  @ApiPropertyOptional({ description: 'Refuse passwords on the bundled common-password list (case-insensitive)' })
  @Optional()
  @FormBool()
  @IsBoolean()
  rejectCommonPasswords?: boolean;

  @ApiPropertyOptional({
    description:
      'Refuse passwords containing the user name, mobile or e-mail local part (values of 3 characters or more, case-insensitive)',
  })
  @Optional()
  @FormBool()
  @IsBoolean()
  rejectAccountInPassword?: boolean;

  @ApiPropertyOptional({ description: 'Disable accounts with no successful login for this many days; 0 never' })
  @Optional()
  @FormInt()
  @IntRange(0, 3650)
  dormantDays?: number;

  @ApiPropertyOptional({
    description:
      'Users may reset a forgotten password with a code sent to their mobile or e-mail (/sys/password/forgot, /reset)',
  })
  @Optional()
  @FormBool()
  @IsBoolean()
  selfServiceReset?: boolean;
}
