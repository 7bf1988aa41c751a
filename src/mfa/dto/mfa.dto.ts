import { ApiProperty } from '@nestjs/swagger';
import { IsString, Matches, MaxLength } from 'class-validator';

import { MFA_CODE } from '../../auth/dto/login.dto';

export class MfaCodeDto {
  @ApiProperty({
    description: 'a 6-digit TOTP code, or (disable, recoveryCodes) a recovery code xxxx-xxxx',
    example: '123456',
  })
  @IsString()
  @MaxLength(16)
  @Matches(MFA_CODE, { message: '$property must be 6 digits or a recovery code xxxx-xxxx' })
  code: string;
}

export class TotpCodeDto {
  @ApiProperty({ description: 'a 6-digit code of the secret from /sys/me/mfa/setup', example: '123456' })
  @IsString()
  @MaxLength(16)
  @Matches(/^\d{6}$/, { message: '$property must be 6 digits' })
  code: string;
}

/** OpenAPI only. */
export class MfaSetupDto {
  @ApiProperty({ description: 'base32 secret, pending 10 minutes until enabled' }) secret: string;
  @ApiProperty({ description: 'otpauth://totp/... for the QR code' }) otpauthUrl: string;
}

/** OpenAPI only. */
export class RecoveryCodesDto {
  @ApiProperty({ type: [String], description: '10 single-use codes xxxx-xxxx, shown once' }) recoveryCodes: string[];
}
