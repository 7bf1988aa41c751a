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
