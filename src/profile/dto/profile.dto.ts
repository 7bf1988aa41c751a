import { ApiProperty, ApiPropertyOptional, PickType } from '@nestjs/swagger';
import { IsIn, IsString, Matches } from 'class-validator';

import { OTP_CHANNELS, OTP_CODE, OtpChannel } from '../../otp/otp.types';
import { UpdateUserDto } from '../../user-account/dto/user.dto';

/** `{ name?, mobile?, email? }`: the checks of /sys/user/update for the same fields. */
export class UpdateProfileDto extends PickType(UpdateUserDto, ['name', 'mobile', 'email'] as const) {}

/** `{ channel, code }`: the code sent to the new mobile (`sms`) or e-mail (`email`). */
export class ConfirmProfileDto {
  @ApiProperty({ enum: OTP_CHANNELS, description: 'sms confirms the new mobile, email the new e-mail' })
  @IsIn(OTP_CHANNELS)
  channel: OtpChannel;

  @ApiProperty({ example: '123456', description: 'the 6-digit code sent to the new mobile or e-mail' })
  @IsString()
  @Matches(OTP_CODE, { message: '$property must be 6 digits' })
  code: string;
}

export class PendingContactDto {
  @ApiProperty({ enum: OTP_CHANNELS }) channel: OtpChannel;
  @ApiProperty({ example: '138****5678', description: 'the new mobile or e-mail, masked: where the code went' })
  sentTo: string;
}

export class ProfileUpdateResultDto {
  @ApiProperty({
    type: [PendingContactDto],
    description:
      'a new mobile or e-mail waiting for /sys/me/profile/confirm (the old one stays until then); empty when everything given is saved',
  })
  pending: PendingContactDto[];
}

export class ProfileDto {
  @ApiProperty() name: string;
  @ApiPropertyOptional({ type: String, nullable: true }) mobile: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) email: string | null;
}
