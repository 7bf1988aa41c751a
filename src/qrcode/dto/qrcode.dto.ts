import { ApiProperty } from '@nestjs/swagger';
import { IsString, MaxLength, MinLength } from 'class-validator';

export class VerifyQrcodeDto {
  @ApiProperty({ description: 'the code from /auth/qrcode/generate' })
  @IsString()
  @MinLength(1)
  @MaxLength(64)
  code: string;
}

export class QrcodeGrantDto {
  @ApiProperty() code: string;
  @ApiProperty({ type: Number, description: 'seconds' }) expiresIn: number;
}
