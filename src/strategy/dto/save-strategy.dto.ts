import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, Matches, Max, MaxLength, Min } from 'class-validator';
import { FormBool, FormInt } from '../../common/form-body';
import { Optional } from '../../common/optional';

const CHANNELS = /^\s*((email|sms|site)\s*(,\s*(email|sms|site)\s*)*)?$/;
const normaliseChannels = () =>
  Transform(({ value }) =>
    typeof value === 'string' && CHANNELS.test(value)
      ? [...new Set(value.split(',').map((s) => s.trim()).filter(Boolean))].join(',')
      : value);
const channelMessage = { message: '$property must be a comma-separated list of email, sms, site' };

/** Fields, all optional: a save is partial. */
export class SaveLoginStrategyDto {
  @ApiPropertyOptional({ description: 'Validity of a normal token, minutes', minimum: 1, maximum: 43200 })
  @Optional() @FormInt() @IsInt() @Min(1) @Max(43200)
  sessionExpireMinutes?: number;

  @ApiPropertyOptional({ description: 'Validity of a temporary token, minutes', minimum: 1, maximum: 1440 })
  @Optional() @FormInt() @IsInt() @Min(1) @Max(1440)
  tempSessionExpireMinutes?: number;

  @ApiPropertyOptional({ description: 'Duration of a lock, minutes', minimum: 1, maximum: 525600 })
  @Optional() @FormInt() @IsInt() @Min(1) @Max(525600)
  lockMinutes?: number;

  @ApiPropertyOptional({ description: 'Wrong passwords that lock the account', minimum: 1, maximum: 1000 })
  @Optional() @FormInt() @IsInt() @Min(1) @Max(1000)
  maxFailureTimes?: number;

  @ApiPropertyOptional({ description: 'Failure counting window, hours', minimum: 1, maximum: 8760 })
  @Optional() @FormInt() @IsInt() @Min(1) @Max(8760)
  maxFailureInterval?: number;

  @ApiPropertyOptional({ description: 'Channels for a wrong password: email,sms,site', example: 'email,site' })
  @Optional() @normaliseChannels() @MaxLength(32) @Matches(CHANNELS, channelMessage)
  sendMsgWhenErrorLogin?: string;

  @ApiPropertyOptional({ description: 'Channels for an unusual IP: email,sms,site', example: 'site' })
  @Optional() @normaliseChannels() @MaxLength(32) @Matches(CHANNELS, channelMessage)
  sendMsgWhenErrorIp?: string;

  @ApiPropertyOptional({ description: '1 tip, 2 force change, 3 refuse', enum: [1, 2, 3] })
  @Optional() @FormInt() @IsInt() @IsIn([1, 2, 3])
  loginStrategyWhenExpire?: 1 | 2 | 3;

  @ApiPropertyOptional()
  @Optional() @FormBool() @IsBoolean()
  bindIp?: boolean;

  @ApiPropertyOptional()
  @Optional() @FormBool() @IsBoolean()
  multiOnline?: boolean;

  @ApiPropertyOptional({ description: 'Second factor: 0 off, 1 users who enabled TOTP, 2 every user must', enum: [0, 1, 2] })
  @Optional() @FormInt() @IsInt() @IsIn([0, 1, 2])
  mfaMode?: 0 | 1 | 2;

  @ApiPropertyOptional({ description: 'Absolute session lifetime, hours after login; 0 = no limit', minimum: 0, maximum: 720 })
  @Optional() @FormInt() @IsInt() @Min(0) @Max(720)
  sessionMaxHours?: number;

  @ApiPropertyOptional({ description: 'With multiOnline: live sessions per user, the oldest kicked out; 0 = no limit', minimum: 0, maximum: 100 })
  @Optional() @FormInt() @IsInt() @Min(0) @Max(100)
  maxSessionsPerUser?: number;

  @ApiPropertyOptional({ description: 'Minutes a password login or /sys/me/reauth counts as a fresh proof', minimum: 1, maximum: 60 })
  @Optional() @FormInt() @IsInt() @Min(1) @Max(60)
  reauthMinutes?: number;

  @ApiPropertyOptional({ description: 'Operations needing a permission code other than a list / info one also need a fresh proof' })
  @Optional() @FormBool() @IsBoolean()
  reauthForAdmin?: boolean;
}

/** Fields, all optional. */
export class SaveUserStrategyDto {
  @ApiPropertyOptional({ description: 'Password validity, days; 0 never expires', minimum: 0, maximum: 3650 })
  @Optional() @FormInt() @IsInt() @Min(0) @Max(3650)
  passwordExpireDays?: number;

  @ApiPropertyOptional({ description: 'Reminder this many days before expiry', minimum: 0, maximum: 365 })
  @Optional() @FormInt() @IsInt() @Min(0) @Max(365)
  expireNotifyDays?: number;

  @ApiPropertyOptional({ minimum: 0, maximum: 72 })
  @Optional() @FormInt() @IsInt() @Min(0) @Max(72)
  minPasswordLength?: number;

  @ApiPropertyOptional({ description: '0 = no maximum; at most 72 (BCrypt reads 72 bytes)', minimum: 0, maximum: 72 })
  @Optional() @FormInt() @IsInt() @Min(0) @Max(72)
  maxPasswordLength?: number;

  @ApiPropertyOptional() @Optional() @FormBool() @IsBoolean()
  includeLowerCase?: boolean;

  @ApiPropertyOptional() @Optional() @FormBool() @IsBoolean()
  includeUpperCase?: boolean;

  @ApiPropertyOptional() @Optional() @FormBool() @IsBoolean()
  includeNumber?: boolean;

  @ApiPropertyOptional() @Optional() @FormBool() @IsBoolean()
  includeSymbol?: boolean;

  @ApiPropertyOptional() @Optional() @FormBool() @IsBoolean()
  forceUpdatePassword?: boolean;

  @ApiPropertyOptional({ description: 'A user\'s own new password may not equal any of their last N, the current one included; 0 off', minimum: 0, maximum: 24 })
  @Optional() @FormInt() @IsInt() @Min(0) @Max(24)
  passwordHistoryCount?: number;

  @ApiPropertyOptional({ description: 'Refuse passwords on the bundled common-password list (case-insensitive)' })
  @Optional() @FormBool() @IsBoolean()
  rejectCommonPasswords?: boolean;

  @ApiPropertyOptional({ description: 'Refuse passwords containing the user name, mobile or e-mail local part (values of 3 characters or more, case-insensitive)' })
  @Optional() @FormBool() @IsBoolean()
  rejectAccountInPassword?: boolean;

  @ApiPropertyOptional({ description: 'Disable accounts with no successful login for this many days; 0 never', minimum: 0, maximum: 3650 })
  @Optional() @FormInt() @IsInt() @Min(0) @Max(3650)
  dormantDays?: number;
}
