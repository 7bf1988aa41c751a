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

  @ApiPropertyOptional({ description: 'captcha text' })
  @Optional() @IsString() @MaxLength(16)
  imgCode?: string;
}

export class LoginResultDto {
  @ApiProperty() accessToken: string;
  @ApiProperty() tempUser: boolean;
  @ApiProperty() forceUpdatePassword: boolean;
  @ApiProperty() tip: string;
}
