import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsString,
  MaxLength,
  MinLength,
  ValidateNested,
} from 'class-validator';

import { FormArray, FormBool } from '../../common/form-body';
import { IsInstant } from '../../common/instant';
import { Optional } from '../../common/optional';
import { RULE_ACTIONS, type RuleAction } from '../access-decision';

/** Types and sizes only: formats and ranges are checked by the service, each entry named (access-rule-input.ts). */
export class TimeWindowDto {
  @ApiProperty({ type: [Number], example: [1, 2, 3, 4, 5], description: 'weekdays 1–7, Monday = 1' })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(7)
  @IsInt({ each: true })
  days: number[];

  @ApiProperty({ example: '09:00', description: 'HH:mm in DISPLAY_TIMEZONE' })
  @IsString()
  @MaxLength(5)
  start: string;

  @ApiProperty({
    example: '18:00',
    description:
      'HH:mm, exclusive; `24:00` = the end of the day; not later than start: the window runs past midnight into the next day (equal: 24 hours)',
  })
  @IsString()
  @MaxLength(5)
  end: string;
}

export class SaveAccessRuleDto {
  @ApiPropertyOptional({ description: 'absent: a new rule; present: the rule it replaces' })
  @Optional()
  @IsString()
  @MinLength(1)
  @MaxLength(36)
  id?: string;

  @ApiProperty({ example: '办公网' })
  @IsString()
  @MinLength(1)
  @MaxLength(64)
  name: string;

  @ApiProperty({ enum: RULE_ACTIONS, enumName: 'AccessRuleAction' })
  @IsIn(RULE_ACTIONS)
  action: RuleAction;

  @ApiPropertyOptional({
    type: [String],
    example: ['10.0.0.0/8', '2001:db8::/32'],
    description: 'addresses and CIDR ranges; empty or absent = any address',
  })
  @Optional()
  @FormArray()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @MaxLength(64, { each: true })
  ipRanges?: string[];

  @ApiPropertyOptional({ type: [TimeWindowDto], description: 'empty or absent = any time' })
  @Optional()
  @IsArray()
  @ArrayMaxSize(20)
  @ValidateNested({ each: true })
  @Type(() => TimeWindowDto)
  timeWindows?: TimeWindowDto[];

  @ApiPropertyOptional({ type: [String], description: 'role codes; with users empty or absent: everyone' })
  @Optional()
  @FormArray()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @MaxLength(64, { each: true })
  roles?: string[];

  @ApiPropertyOptional({ type: [String], description: 'user ids' })
  @Optional()
  @FormArray()
  @IsArray()
  @ArrayMaxSize(500)
  @IsString({ each: true })
  @MaxLength(36, { each: true })
  users?: string[];

  @ApiPropertyOptional({ default: true })
  @Optional()
  @FormBool()
  @IsBoolean()
  enabled?: boolean;
}

export class AccessRuleIdDto {
  @ApiProperty()
  @IsString()
  @MinLength(1)
  @MaxLength(36)
  id: string;
}

export class CheckAccessDto {
  @ApiProperty()
  @IsString()
  @MinLength(1)
  @MaxLength(36)
  userId: string;

  @ApiProperty({ example: '10.1.2.3' })
  @IsString()
  @MaxLength(64)
  ip: string;

  @ApiPropertyOptional({ description: 'ISO 8601; absent = now' })
  @Optional()
  @IsInstant()
  time?: string;
}

/** OpenAPI only: a user a rule names, with the user name the console shows. */
export class RuleUserDto {
  @ApiProperty() id: string;
  @ApiProperty({ type: String, nullable: true, description: 'null: the user no longer exists' })
  username: string | null;
}

/** OpenAPI only: a rule as the list answers it. */
export class AccessRuleDto {
  @ApiProperty() id: string;
  @ApiProperty() name: string;
  @ApiProperty({ enum: RULE_ACTIONS, enumName: 'AccessRuleAction' }) action: RuleAction;
  @ApiProperty({ type: [String] }) ipRanges: string[];
  @ApiProperty({ type: [TimeWindowDto] }) timeWindows: TimeWindowDto[];
  @ApiProperty({ type: [String] }) roles: string[];
  @ApiProperty({ type: [String] }) users: string[];
  @ApiProperty() enabled: boolean;
  @ApiProperty({ type: [RuleUserDto], description: 'the users of `users` with their user names (our addition)' })
  userRefs: RuleUserDto[];
  @ApiProperty({ format: 'date-time' }) createTime: string;
  @ApiProperty({ format: 'date-time' }) updateTime: string;
}

/** OpenAPI only: the deciding rule of a check. */
export class DecidingRuleDto {
  @ApiProperty() id: string;
  @ApiProperty() name: string;
  @ApiProperty({ enum: RULE_ACTIONS, enumName: 'AccessRuleAction' }) action: RuleAction;
}

/** OpenAPI only: what /sys/accessRule/check answers. */
export class AccessCheckResultDto {
  @ApiProperty() allowed: boolean;
  @ApiProperty({
    enum: ['none', 'allow', 'deny', 'noAllowMatch'],
    enumName: 'AccessDecisionReason',
    description:
      '`none`: no enabled rule applies to the user; `allow`: an allow rule matches; `deny`: a deny rule matches; `noAllowMatch`: allow rules apply and none matches',
  })
  reason: string;
  @ApiProperty({ type: DecidingRuleDto, nullable: true }) rule: DecidingRuleDto | null;
}
