import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize, IsArray, IsEmail, IsString, Matches, MaxLength, MinLength,
} from 'class-validator';
import { FormArray } from '../../common/form-body';
import { Optional } from '../../common/optional';
import { PagingDto } from '../../common/paging.dto';

export class CreateUserDto {
  @ApiProperty({ example: 'zhangsan' })
  @IsString() @Matches(/^[A-Za-z0-9_.-]{2,64}$/, { message: 'username must be 2-64 letters, digits, _ . or -' })
  username: string;

  @ApiProperty({ example: '张三' })
  @IsString() @MinLength(1) @MaxLength(64)
  name: string;

  @ApiPropertyOptional({ example: '13800138000' })
  @Optional() @IsString() @Matches(/^\+?[0-9]{5,20}$/, { message: 'mobile must be 5-20 digits' })
  mobile?: string;

  @ApiPropertyOptional({ example: 'zhangsan@example.com' })
  @Optional() @IsString() @MaxLength(128) @IsEmail()
  email?: string;

  @ApiPropertyOptional({ description: 'RSA-OAEP-256 ciphertext (base64); omitted: a password is generated and returned once' })
  @Optional() @IsString() @MaxLength(1024)
  password?: string;

  @ApiPropertyOptional({ type: [String], example: ['admin'] })
  @Optional() @FormArray() @IsArray() @ArrayMaxSize(50) @IsString({ each: true }) @MaxLength(64, { each: true })
  roles?: string[];
}

export class UserIdDto {
  @ApiProperty()
  @IsString() @MinLength(1) @MaxLength(36)
  id: string;
}

export class ListUsersDto extends PagingDto {
  @ApiPropertyOptional({ description: 'matches user name, name, mobile or e-mail' })
  @Optional() @IsString() @MaxLength(64)
  keyword?: string;
}

export class ChangePasswordDto {
  @ApiProperty({ description: 'RSA-OAEP-256 ciphertext (base64)' })
  @IsString() @MinLength(1) @MaxLength(1024)
  oldPass: string;

  @ApiProperty({ description: 'RSA-OAEP-256 ciphertext (base64)' })
  @IsString() @MinLength(1) @MaxLength(1024)
  newPass: string;
}

export class SaveRoleDto {
  @ApiProperty({ example: 'auditor' })
  @IsString() @Matches(/^[A-Za-z0-9_:.-]{1,64}$/, { message: 'code must be 1-64 letters, digits, _ : . or -' })
  code: string;

  @ApiProperty({ example: '审计员' })
  @IsString() @MinLength(1) @MaxLength(64)
  name: string;

  @ApiProperty({ type: [String], example: ['sys:loginLog:list'] })
  @FormArray() @IsArray() @ArrayMaxSize(200) @IsString({ each: true }) @MaxLength(64, { each: true })
  permissions: string[];
}

/** OpenAPI only: a row of /sys/user/list (no hash, contract §4). */
export class UserRowDto {
  @ApiProperty() id: string;
  @ApiProperty() username: string;
  @ApiProperty() name: string;
  @ApiProperty({ type: String, nullable: true }) mobile: string | null;
  @ApiProperty({ type: String, nullable: true }) email: string | null;
  @ApiProperty() locked: boolean;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) unlockTime: string | null;
  @ApiProperty() disabled: boolean;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) passwordUpdateTime: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) passwordExpireTime: string | null;
  @ApiProperty({ format: 'date-time' }) createTime: string;
  @ApiProperty({ type: [String] }) roles: string[];
  @ApiProperty({ description: 'contract §8: TOTP enabled' }) mfaEnabled: boolean;
}

/** OpenAPI only: /sys/user/create's answer; `password` only when the service generated it (shown once). */
export class CreatedUserDto {
  @ApiProperty() id: string;
  @ApiPropertyOptional() password?: string;
}

/** OpenAPI only: /sys/user/resetPass's answer when the service generated the password; null otherwise. */
export class ResetPasswordResultDto {
  @ApiPropertyOptional() password?: string;
}

/** OpenAPI only: a role of /sys/role/list. */
export class RoleDto {
  @ApiProperty() code: string;
  @ApiProperty() name: string;
  @ApiProperty({ type: [String] }) permissions: string[];
}

/** OpenAPI only: /sys/me/info. */
export class MeInfoDto {
  @ApiProperty() id: string;
  @ApiProperty() username: string;
  @ApiProperty() name: string;
  @ApiProperty({ type: String, nullable: true }) mobile: string | null;
  @ApiProperty({ type: String, nullable: true }) email: string | null;
  @ApiProperty({ type: [String], description: 'permission codes; `*` holds every one' }) permissions: string[];
  @ApiProperty() tempUser: boolean;
  @ApiProperty({ description: 'contract §8: TOTP enabled' }) mfaEnabled: boolean;
  @ApiProperty({ description: 'end of the calling session, epoch ms (after this request\'s renewal, spec 3.4)' }) expireAt: number;
  @ApiProperty({ description: 'the service\'s clock when it answered, epoch ms: what is left is expireAt − serverTime' }) serverTime: number;
}
