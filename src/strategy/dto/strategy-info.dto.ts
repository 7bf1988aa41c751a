import { ApiProperty } from '@nestjs/swagger';

/** OpenAPI only: what /sys/strategy/login/info answers (every field). */
export class LoginStrategyDto {
  @ApiProperty({ description: 'minutes' }) sessionExpireMinutes: number;
  @ApiProperty({ description: 'minutes' }) tempSessionExpireMinutes: number;
  @ApiProperty({ description: 'minutes' }) lockMinutes: number;
  @ApiProperty() maxFailureTimes: number;
  @ApiProperty({ description: 'hours' }) maxFailureInterval: number;
  @ApiProperty({ description: 'comma-separated: email, sms, site; empty for none' }) sendMsgWhenErrorLogin: string;
  @ApiProperty({ description: 'comma-separated: email, sms, site; empty for none' }) sendMsgWhenErrorIp: string;
  @ApiProperty({ description: '1 tip, 2 force change, 3 refuse', enum: [1, 2, 3] }) loginStrategyWhenExpire: 1 | 2 | 3;
  @ApiProperty() bindIp: boolean;
  @ApiProperty() multiOnline: boolean;
  @ApiProperty({ description: 'Second factor: 0 off, 1 users who enabled TOTP, 2 every user must', enum: [0, 1, 2] })
  mfaMode: 0 | 1 | 2;
  @ApiProperty({ description: 'hours after login, however often renewed; 0 = no limit' }) sessionMaxHours: number;
  @ApiProperty({ description: 'with multiOnline: live sessions per user; 0 = no limit' }) maxSessionsPerUser: number;
  @ApiProperty({ description: 'minutes a password login or /sys/me/reauth counts as a fresh proof' })
  reauthMinutes: number;
  @ApiProperty({ description: 'changes (codes other than list / info) need a fresh proof too' })
  reauthForAdmin: boolean;
  @ApiProperty({ description: 'passwordless login with a passkey' }) passkeyLogin: boolean;
  @ApiProperty({ description: 'POST /sys/login/otp allowed (a code by SMS or e-mail)' }) otpLogin: boolean;
  @ApiProperty({
    description: 'what may finish /sys/login/mfa: totp, sms, email',
    type: [String],
    enum: ['totp', 'sms', 'email'],
  })
  mfaChannels: ('totp' | 'sms' | 'email')[];
  @ApiProperty({ description: 'every login needs a captcha while the service is under attack' })
  captchaUnderAttack: boolean;
  @ApiProperty({ description: 'failed logins a minute, across the service, that mean an attack' })
  attackFailuresPerMinute: number;
}

/** OpenAPI only: the rules of a new password (/sys/strategy/user/rules): the complexity rules and the checks of a user's own change. */
export class PasswordRulesDto {
  @ApiProperty() minPasswordLength: number;
  @ApiProperty() maxPasswordLength: number;
  @ApiProperty() includeLowerCase: boolean;
  @ApiProperty() includeUpperCase: boolean;
  @ApiProperty() includeNumber: boolean;
  @ApiProperty() includeSymbol: boolean;
  @ApiProperty({
    description:
      "The last N passwords (the current one included) may not be reused on one's own change; 0 off. Checked on save only.",
  })
  passwordHistoryCount: number;
  @ApiProperty({
    description:
      "Passwords on the service's common-password list are refused on one's own change. Checked on save only.",
  })
  rejectCommonPasswords: boolean;
  @ApiProperty({
    description:
      "A password may not contain the user name, mobile or e-mail local part (values of 3 characters or more, case-insensitive) on one's own change.",
  })
  rejectAccountInPassword: boolean;
}

/** OpenAPI only: what /sys/strategy/user/info answers (every field). */
export class UserStrategyDto extends PasswordRulesDto {
  @ApiProperty({ description: 'days; 0 never expires' }) passwordExpireDays: number;
  @ApiProperty({ description: 'days' }) expireNotifyDays: number;
  @ApiProperty() forceUpdatePassword: boolean;
  @ApiProperty({ description: 'Days without a successful login before the daily job disables the account; 0 never' })
  dormantDays: number;
  @ApiProperty({ description: 'A forgotten password may be reset with a code sent by SMS or e-mail' })
  selfServiceReset: boolean;
}
