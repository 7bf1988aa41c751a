import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsObject, IsString, Matches, MaxLength, MinLength, ValidateBy, ValidateIf } from 'class-validator';

/** A TOTP code (6 digits) or a recovery code (xxxx-xxxx, the hyphen optional, any case). */
export const MFA_CODE = /^(\d{6}|[A-Za-z0-9]{4}-?[A-Za-z0-9]{4})$/;
import { Optional } from '../../common/optional';

export class LoginDto {
  @ApiProperty({ description: 'account name, mobile number or e-mail address', example: 'admin' })
  @IsString()
  @MinLength(1)
  @MaxLength(128)
  account: string;

  @ApiProperty({
    description:
      'ciphertext under /sys/publicKey (RSA-OAEP-256, base64; SM2 C1C3C2, hex, under CRYPTO_SUITE=gm) of the password',
  })
  @IsString()
  @MinLength(1)
  @MaxLength(1024)
  password: string;

  @ApiPropertyOptional({ description: 'captcha id from /sys/captcha' })
  @Optional()
  @IsString()
  @MaxLength(64)
  imgId?: string;

  @ApiPropertyOptional({ description: 'the text shown in the captcha image (case-insensitive)' })
  @Optional()
  @IsString()
  @MaxLength(16)
  imgCode?: string;
}

export class LoginResultDto {
  @ApiProperty({ type: String, nullable: true, description: 'null while mfaRequired' }) accessToken: string | null;
  @ApiProperty() tempUser: boolean;
  @ApiProperty() forceUpdatePassword: boolean;
  @ApiProperty() tip: string;
  @ApiProperty({ description: 'Finish with POST /sys/login/mfa { mfaToken, code }' }) mfaRequired: boolean;
  @ApiProperty({ type: String, nullable: true, description: 'valid 5 minutes, consumed by the first right code' })
  mfaToken: string | null;
  @ApiProperty({ description: 'MfaMode 2, not enrolled: the temporary token reaches /sys/me/mfa/setup and enable' })
  mfaSetupRequired: boolean;
}

/** The second step of a password login. */
export class MfaLoginDto {
  @ApiProperty({ description: 'from the login result' })
  @IsString()
  @MinLength(16)
  @MaxLength(128)
  @Matches(/^[A-Za-z0-9_-]+$/, { message: '$property must be the mfaToken of the login result' })
  mfaToken: string;

  @ApiPropertyOptional({
    description: 'a 6-digit TOTP code or a recovery code xxxx-xxxx (required unless passkey is given)',
    example: '123456',
  })
  @ValidateIf((dto: MfaLoginDto) => dto.passkey === undefined || dto.code !== undefined)
  @IsString()
  @MaxLength(16)
  @Matches(MFA_CODE, { message: '$property must be 6 digits or a recovery code xxxx-xxxx' })
  code?: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'instead of code: the assertion (AuthenticationResponseJSON) to /sys/login/mfa/passkey/options',
  })
  @Optional()
  @IsObject()
  @ValidateBy(
    {
      name: 'withoutCode',
      validator: { validate: (_value, args) => (args?.object as MfaLoginDto).code === undefined },
    },
    { message: '$property and code cannot both be given' },
  )
  passkey?: Record<string, unknown>;
}

export class CaptchaResultDto {
  @ApiProperty({ description: 'CAPTCHA_ENABLED; when false the login needs no imgId/imgCode' }) enabled: boolean;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'id to send back as imgId; valid 180 s, for one login attempt',
  })
  imgId: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'the captcha as a PNG data URL (data:image/png;base64,...), 120x40 pixels',
  })
  img: string | null;
}

/** The key every password field is encrypted under. */
export class PublicKeyDto {
  @ApiProperty() keyId: string;
  @ApiProperty({ enum: ['RSA-OAEP-256', 'SM2'], description: 'SM2 under CRYPTO_SUITE=gm' }) algorithm:
    'RSA-OAEP-256' | 'SM2';
  @ApiProperty({ description: 'SPKI PEM (RSA-OAEP-256), or the uncompressed point, hex, 04… (SM2)' }) publicKey: string;
}
