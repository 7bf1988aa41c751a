import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, MaxLength, MinLength, ValidateBy } from 'class-validator';

import { ipAddress } from '../../common/client-info';
import { Optional } from '../../common/optional';

/** The codes an inactive token answers: what a request with it would get. */
export const INACTIVE_REASONS = ['NOT_LOGGED_IN', 'KICKED_OUT', 'IP_MISMATCH'] as const;
export type InactiveReason = (typeof INACTIVE_REASONS)[number];

/** An IPv4 or IPv6 address as a session stores one (no IPv6 zone). */
const IsAddress = () =>
  ValidateBy({
    name: 'isIp',
    validator: {
      validate: (value) => typeof value === 'string' && ipAddress(value) !== null,
      defaultMessage: () => '$property must be an IPv4 or IPv6 address',
    },
  });

export class IntrospectTokenDto {
  @ApiProperty({ description: 'the token a client sent to the gateway (Admin-Token or Bearer)', maxLength: 256 })
  @IsString()
  @MinLength(1)
  @MaxLength(256)
  token: string;

  @ApiPropertyOptional({
    description:
      "the client's IP as the gateway saw it; with bindIp on, a token from another IP is IP_MISMATCH. " +
      'Without it the bindIp check is skipped.',
    example: '203.0.113.7',
  })
  @Optional()
  @IsString()
  @MaxLength(64)
  @IsAddress()
  ip?: string;
}

/**
 * The state of a token. Active: the session's user and codes, times in epoch milliseconds like the
 * online-session list; inactive: only `reason`.
 */
export class IntrospectionDto {
  @ApiProperty() active: boolean;
  @ApiPropertyOptional({ enum: INACTIVE_REASONS, description: 'inactive only: the code a request with the token gets' })
  reason?: InactiveReason;
  @ApiPropertyOptional() userId?: string;
  @ApiPropertyOptional() username?: string;
  @ApiPropertyOptional({ type: [String], description: 'the permission codes of the session (`*` = every code)' })
  permissions?: string[];
  @ApiPropertyOptional({ description: 'a temporary token (it reaches only TEMP_URIS)' }) tempUser?: boolean;
  @ApiPropertyOptional({ type: Number, description: 'epoch ms' }) loginTime?: number;
  @ApiPropertyOptional({ type: Number, description: 'epoch ms, after the renewal this introspection made' })
  expireAt?: number;
  @ApiPropertyOptional({
    description:
      'the login that made the session proved a second factor (or was a QR login authorised by a session that had)',
  })
  mfa?: boolean;
}
