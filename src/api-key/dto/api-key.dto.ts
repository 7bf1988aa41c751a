import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsInt,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateBy,
} from 'class-validator';

import { FormArray, FormInt } from '../../common/form-body';
import { Optional } from '../../common/optional';
import { textRule } from '../../common/validation.pipe';
import { rangeOf } from '../ip-ranges';

/** Each entry a CIDR range or an address (validated here so that the form can mark the field). */
const IsIpRange = () =>
  ValidateBy(
    { name: 'ipRange', validator: { validate: (value) => typeof value === 'string' && rangeOf(value) !== null } },
    { each: true, message: textRule('validation.ipRangeEach') },
  );

export class CreateApiKeyDto {
  /** Named like a user name: it names the key's actions in the audit log as `apikey:<name>`. */
  @ApiProperty({
    example: 'billing-gateway',
    description: '1–48 letters, digits, `_`, `.` or `-`; unique ignoring case',
  })
  @IsString()
  @Matches(/^[A-Za-z0-9_.-]{1,48}$/, { message: 'name must be 1-48 letters, digits, _ . or -' })
  name: string;

  @ApiProperty({
    type: [String],
    example: ['sys:user:list', 'sys:user:lock'],
    description: "permission codes of the registry, within the caller's; never `*` nor `sys:apiKey:*`",
  })
  @FormArray()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(200)
  @ArrayUnique()
  @IsString({ each: true })
  @MaxLength(64, { each: true })
  permissions: string[];

  @ApiPropertyOptional({ type: Number, minimum: 1, maximum: 3650, description: 'left out: the key does not expire' })
  @Optional()
  @FormInt()
  @IsInt()
  @Min(1)
  @Max(3650)
  expiresInDays?: number;

  @ApiPropertyOptional({
    type: [String],
    example: ['10.0.0.0/8', '2001:db8::/32'],
    description: 'CIDR ranges or addresses (IPv4, IPv6) the key is good from; left out or empty: any',
  })
  @Optional()
  @FormArray()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @MaxLength(64, { each: true })
  @IsIpRange()
  ipRanges?: string[];
}

export class ApiKeyIdDto {
  @ApiProperty()
  @IsString()
  @MinLength(1)
  @MaxLength(36)
  id: string;
}

/** OpenAPI only: the answer of /sys/apiKey/create. */
export class CreatedApiKeyDto {
  @ApiProperty() id: string;
  @ApiProperty({ description: '`lps_` and 43 base62 characters; shown this once, stored only as its SHA-256' })
  key: string;
}

/** OpenAPI only: a row of /sys/apiKey/list (never the key nor its hash). */
export class ApiKeyRowDto {
  @ApiProperty() id: string;
  @ApiProperty() name: string;
  @ApiProperty({ example: 'lps_7Hq2', description: 'the first 8 characters of the key' }) prefix: string;
  @ApiProperty({ type: [String] }) permissions: string[];
  @ApiProperty({ type: String, format: 'date-time' }) createTime: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'null: never expires' })
  expireTime: string | null;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'null: never used; each instance writes it every 30 s',
  })
  lastUsedTime: string | null;
  @ApiProperty({ type: [String], description: 'empty: any address' }) ipRanges: string[];
  @ApiProperty() revoked: boolean;
}
