import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, MaxLength, MinLength } from 'class-validator';
import { Optional } from '../../common/optional';

export class LoginDto {
  @ApiProperty({ description: 'account name, mobile number or e-mail address', example: 'admin' })
  @IsString() @MinLength(1) @MaxLength(128)
  account: string;

  @ApiProperty({ description: 'RSA-OAEP-256 ciphertext (base64) of the password under /sys/publicKey' })
  @IsString() @MinLength(1) @MaxLength(1024)
  password: string;

  @ApiPropertyOptional({ description: 'captcha id from /sys/captcha' })
  @Optional() @IsString() @MaxLength(64)
  imgId?: string;

  @ApiPropertyOptional({ description: 'the text shown in the captcha image (case-insensitive)' })
  @Optional() @IsString() @MaxLength(16)
  imgCode?: string;
}

export class LoginResultDto {
  @ApiProperty() accessToken: string;
  @ApiProperty() tempUser: boolean;
  @ApiProperty() forceUpdatePassword: boolean;
  @ApiProperty() tip: string;
}

export class CaptchaResultDto {
  @ApiProperty({ description: 'CAPTCHA_ENABLED; when false the login needs no imgId/imgCode' }) enabled: boolean;
  @ApiProperty({ type: String, nullable: true, description: 'id to send back as imgId; valid 180 s, for one login attempt' })
  imgId: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'the captcha as a PNG data URL (data:image/png;base64,...), 120x40 pixels' })
  img: string | null;
}

/** Contract §3: the key every password field is encrypted under. */
export class PublicKeyDto {
  @ApiProperty() keyId: string;
  @ApiProperty({ example: 'RSA-OAEP-256' }) algorithm: string;
  @ApiProperty({ description: 'SPKI PEM' }) publicKey: string;
}
