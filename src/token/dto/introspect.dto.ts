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

/**
 * The OK answer for Fastify's response serializer (fast-json-stringify, compiled once) instead of
 * JSON.stringify: a gateway calls this route for every request it lets through. Only 200 is
 * described, so errors keep their own serialization. Fields left undefined (those of the other
 * state) are not sent; a field not listed here is not sent either, so
 * test/token-introspection.e2e-spec.ts keeps it equal to IntrospectionDto.
 */
export const INTROSPECTION_RESPONSE = {
  200: {
    type: 'object',
    properties: {
      success: { type: 'boolean' },
      code: { type: 'string' },
      message: { type: 'string' },
      data: {
        type: 'object',
        properties: {
          active: { type: 'boolean' },
          reason: { type: 'string' },
          userId: { type: 'string' },
          username: { type: 'string' },
          permissions: { type: 'array', items: { type: 'string' } },
          tempUser: { type: 'boolean' },
          loginTime: { type: 'number' },
          expireAt: { type: 'number' },
          mfa: { type: 'boolean' },
        },
      },
    },
  },
} as const;
