import { ApiProperty, ApiPropertyOptional, IntersectionType, OmitType } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsEmail,
  IsIn,
  IsString,
  Matches,
  MaxLength,
  MinLength,
  ValidateBy,
  ValidateIf,
} from 'class-validator';

import { ExportOptionsDto } from '../../common/export-table';
import { FormArray } from '../../common/form-body';
import { Optional } from '../../common/optional';
import { PagingDto } from '../../common/paging.dto';
import { ADMIN_SET_NAMES, AdminSet } from '../../common/permissions';
import { textRule } from '../../common/validation.pipe';
import { ADMIN_MODES, AdminMode, USERNAME } from '../../config/app-config';
import { hasControlOrFormat, hasHiddenOrSpace, mixesScripts, nfkc } from '../user-identifier';

/**
 * A mobile number (`12345` is none): 11 digits of a mainland China number, or `+`, a
 * country code and the number (E.164, at most 15 digits; not +86, whose numbers are written in the
 * 11-digit form, so that one phone is never two identifiers). Messages in the caller's language.
 */
export const MOBILE = /^(1[3-9][0-9]{9}|\+(?!86)[1-9][0-9]{6,14})$/;
const IsMobile = () => Matches(MOBILE, { message: textRule('validation.mobile') });
const IsMail = () => IsEmail({}, { message: textRule('validation.email') });

/**
 * A user name, mobile or e-mail in NFKC before any rule sees it, so that it is checked,
 * stored and compared in the form a login finds it by; none with an invisible or white-space
 * character; an e-mail with one script per part.
 */
const Nfkc = () => Transform(({ value }) => (typeof value === 'string' ? nfkc(value) : value));
const textOnly = (name: string, refused: (value: string) => boolean, key: Parameters<typeof textRule>[0]) =>
  ValidateBy(
    { name, validator: { validate: (value) => typeof value !== 'string' || !refused(value) } },
    { message: textRule(key) },
  );
const NoHiddenOrSpace = () => textOnly('identifierCharacters', hasHiddenOrSpace, 'validation.identifierCharacters');
const OneScriptPerPart = () => textOnly('mixedScripts', mixesScripts, 'validation.mixedScripts');
/** A display name shows in lists and notices; no control or format characters. */
const DisplayText = () => textOnly('nameCharacters', hasControlOrFormat, 'validation.nameCharacters');

/** Optional, and `null` clears the value (an update's mobile or e-mail). */
const OptionalOrNull = () => ValidateIf((_object, value) => value !== undefined && value !== null);

/** A user name, as /sys/user/create and /sys/user/update take it (after NFKC). */
const IsUsername = () => Matches(USERNAME, { message: 'username must be 2-64 letters, digits, _ . or -' });

export class CreateUserDto {
  @ApiProperty({ example: 'zhangsan' })
  @Nfkc()
  @IsString()
  @NoHiddenOrSpace()
  @IsUsername()
  username: string;

  @ApiProperty({ example: '张三' })
  @IsString()
  @MinLength(1)
  @MaxLength(64)
  @DisplayText()
  name: string;

  @ApiPropertyOptional({ example: '13800138000' })
  @Optional()
  @Nfkc()
  @IsString()
  @NoHiddenOrSpace()
  @IsMobile()
  mobile?: string;

  @ApiPropertyOptional({ example: 'zhangsan@example.com' })
  @Optional()
  @Nfkc()
  @IsString()
  @MaxLength(128)
  @NoHiddenOrSpace()
  @IsMail()
  @OneScriptPerPart()
  email?: string;

  @ApiPropertyOptional({
    description:
      'ciphertext under /sys/publicKey (RSA-OAEP-256, base64; SM2 C1C3C2, hex, under CRYPTO_SUITE=gm); omitted: a password is generated and returned once',
  })
  @Optional()
  @IsString()
  @MaxLength(1024)
  password?: string;

  @ApiPropertyOptional({ type: [String], example: ['admin'] })
  @Optional()
  @FormArray()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @MaxLength(64, { each: true })
  roles?: string[];
}

export class UserIdDto {
  @ApiProperty()
  @IsString()
  @MinLength(1)
  @MaxLength(36)
  id: string;
}

/** /sys/user/resetPass: the user, and the password the administrator typed (else one is generated or DEFAULT_PASSWORD set). */
export class ResetPasswordDto extends UserIdDto {
  @ApiPropertyOptional({
    description:
      "ciphertext under /sys/publicKey (RSA-OAEP-256, base64; SM2 C1C3C2, hex, under CRYPTO_SUITE=gm) of the new initial password, checked by the user strategy's complexity rules; omitted: DEFAULT_PASSWORD, or a generated one answered once",
  })
  @Optional()
  @IsString()
  @MinLength(1)
  @MaxLength(1024)
  password?: string;
}

/**
 * `{ id }` or `{ ids }` (1–100 distinct ids), never both (the service checks that,
 * VALIDATION_FAILED naming ids). Every user is checked before any changes: all or nothing.
 */
export class UserIdsDto {
  @ApiPropertyOptional()
  @ValidateIf((o: UserIdsDto) => o.id !== undefined || o.ids === undefined)
  @IsString()
  @MinLength(1)
  @MaxLength(36)
  id?: string;

  @ApiPropertyOptional({ type: [String], minItems: 1, maxItems: 100 })
  @Optional()
  @FormArray()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(100)
  @ArrayUnique()
  @IsString({ each: true })
  @MinLength(1, { each: true })
  @MaxLength(36, { each: true })
  ids?: string[];
}

/** /sys/user/update: partial; `null` clears mobile or e-mail; `roles` replaces the set. */
export class UpdateUserDto {
  @ApiProperty()
  @IsString()
  @MinLength(1)
  @MaxLength(36)
  id: string;

  @ApiPropertyOptional({
    example: 'zhangsan',
    description:
      'a new user name: unique among every user name, mobile and e-mail, checked as at create; the login log keeps the name each attempt used',
  })
  @Optional()
  @Nfkc()
  @IsString()
  @NoHiddenOrSpace()
  @IsUsername()
  username?: string;

  @ApiPropertyOptional({ example: '张三' })
  @Optional()
  @IsString()
  @MinLength(1)
  @MaxLength(64)
  @DisplayText()
  name?: string;

  @ApiPropertyOptional({ type: String, nullable: true, example: '13800138000', description: 'null clears it' })
  @OptionalOrNull()
  @Nfkc()
  @IsString()
  @NoHiddenOrSpace()
  @IsMobile()
  mobile?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, example: 'zhangsan@example.com', description: 'null clears it' })
  @OptionalOrNull()
  @Nfkc()
  @IsString()
  @MaxLength(128)
  @NoHiddenOrSpace()
  @IsMail()
  @OneScriptPerPart()
  email?: string | null;

  @ApiPropertyOptional({ type: [String], example: ['auditor'], description: "replaces the user's roles" })
  @Optional()
  @FormArray()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @MaxLength(64, { each: true })
  roles?: string[];
}

/** User states; a user may be in several (locked and initial), `normal` in none. */
export const USER_STATES = ['normal', 'locked', 'disabled', 'expired', 'initial'] as const;
export type UserState = (typeof USER_STATES)[number];

export class ListUsersDto extends PagingDto {
  @ApiPropertyOptional({ description: 'matches user name, name, mobile or e-mail' })
  @Optional()
  @IsString()
  @MaxLength(64)
  keyword?: string;

  @ApiPropertyOptional({
    enum: USER_STATES,
    description:
      'locked: locked and the unlock time not past; disabled; expired: password expired by the account strategy; ' +
      'initial: password never changed since set by an administrator; normal: none of these',
  })
  @Optional()
  @IsIn(USER_STATES)
  state?: UserState;
}

export class RoleCodeDto {
  @ApiProperty({ example: 'auditor' })
  @IsString()
  @MinLength(1)
  @MaxLength(64)
  code: string;
}

export class ChangePasswordDto {
  @ApiProperty({
    description: 'ciphertext under /sys/publicKey (RSA-OAEP-256, base64; SM2 C1C3C2, hex, under CRYPTO_SUITE=gm)',
  })
  @IsString()
  @MinLength(1)
  @MaxLength(1024)
  oldPass: string;

  @ApiProperty({
    description: 'ciphertext under /sys/publicKey (RSA-OAEP-256, base64; SM2 C1C3C2, hex, under CRYPTO_SUITE=gm)',
  })
  @IsString()
  @MinLength(1)
  @MaxLength(1024)
  newPass: string;
}

/** /sys/me/reauth: the password or, for a user with TOTP, a code (exactly one; checked in MeController). */
export class ReauthDto {
  @ApiPropertyOptional({
    description:
      'the password, ciphertext under /sys/publicKey (RSA-OAEP-256, base64; SM2 C1C3C2, hex, under CRYPTO_SUITE=gm) as at login',
  })
  @Optional()
  @IsString()
  @MinLength(1)
  @MaxLength(1024)
  password?: string;

  @ApiPropertyOptional({
    description: 'a 6-digit TOTP code or a recovery code xxxx-xxxx (users with TOTP enabled)',
    example: '123456',
  })
  // The format of a second-factor code (MFA_CODE in src/auth/dto/login.dto.ts, which this module cannot import).
  @Optional()
  @IsString()
  @MaxLength(16)
  @Matches(/^(\d{6}|[A-Za-z0-9]{4}-?[A-Za-z0-9]{4})$/, {
    message: '$property must be 6 digits or a recovery code xxxx-xxxx',
  })
  code?: string;
}

/** OpenAPI only: what /sys/me/reauth answers. */
export class ReauthResultDto {
  @ApiProperty({ description: 'epoch ms until which the session counts as freshly proven' }) reauthUntil: number;
}

export class SaveRoleDto {
  @ApiProperty({ example: 'auditor' })
  @IsString()
  @Matches(/^[A-Za-z0-9_:.-]{1,64}$/, { message: 'code must be 1-64 letters, digits, _ : . or -' })
  code: string;

  @ApiProperty({ example: '审计员' })
  @IsString()
  @MinLength(1)
  @MaxLength(64)
  name: string;

  @ApiProperty({ type: [String], example: ['sys:loginLog:list'] })
  @FormArray()
  @IsArray()
  @ArrayMaxSize(200)
  @IsString({ each: true })
  @MaxLength(64, { each: true })
  permissions: string[];
}

/** OpenAPI only: a row of /sys/user/list (no hash). */
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
  @ApiProperty({ description: 'TOTP enabled' }) mfaEnabled: boolean;
  @ApiProperty({ description: 'registered passkeys' }) passkeyCount: number;
  @ApiProperty({
    description:
      'Failures counted by the lock check now (its window, starting no earlier than the last unlock, enable or reset)',
  })
  failureCount: number;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'Last successful login; null when never',
  })
  lastLoginTime: string | null;
  @ApiProperty({
    enum: USER_STATES,
    description:
      'the most pressing of states: locked, disabled, expired, initial, in that order; normal when none applies',
  })
  state: UserState;
  @ApiProperty({
    enum: USER_STATES,
    isArray: true,
    description: 'every state that applies now, most pressing first; the state filter finds the user under each',
  })
  states: UserState[];
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
  @ApiProperty({ description: 'how many users (not deleted) hold the role' }) userCount: number;
  @ApiProperty({ type: [String], description: 'user names of the holders, at most 50, by user name' }) users: string[];
  @ApiProperty({
    enum: ADMIN_SET_NAMES,
    isArray: true,
    description:
      'the administrator sets (三员分立) that hold every code of the role; empty when none does (`*`, or codes of two sets)',
  })
  sets: AdminSet[];
  @ApiProperty({
    description: 'a built-in role: `admin` in single mode, `sysadmin`, `secadmin` and `auditadmin` in three mode',
  })
  builtIn: boolean;
}

/** OpenAPI only: a permission of /sys/permission/list. */
export class PermissionDto {
  @ApiProperty({ example: 'sys:user:list' }) code: string;
  @ApiProperty({
    example: 'user',
    description: 'group of the code (strategy, user, role, loginLog, online, auditLog, …)',
  })
  module: string;
  @ApiProperty({ example: '查看用户', description: 'in the language of Accept-Language' }) name: string;
}

/** OpenAPI only: an administrator set of /sys/permission/sets (三员分立). */
export class AdminSetDto {
  @ApiProperty({ enum: ADMIN_SET_NAMES, example: 'audit' }) set: AdminSet;
  @ApiProperty({
    example: 'auditadmin',
    description: "the set's built-in role (and first-start account) in three mode",
  })
  role: string;
  @ApiProperty({ example: '审计管理员', description: 'in the language of Accept-Language' }) name: string;
  @ApiProperty({ type: [String], example: ['sys:loginLog:list'] }) codes: string[];
}

/** /sys/user/grant: the user's roles, replaced. */
export class GrantRolesDto {
  @ApiProperty()
  @IsString()
  @MinLength(1)
  @MaxLength(36)
  id: string;

  @ApiProperty({ type: [String], example: ['auditadmin'], description: "replaces the user's roles" })
  @FormArray()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @MaxLength(64, { each: true })
  roles: string[];
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
  @ApiProperty({ description: 'TOTP enabled' }) mfaEnabled: boolean;
  @ApiProperty({ description: "end of the calling session, epoch ms (after this request's renewal)" }) expireAt: number;
  @ApiProperty({ description: "the service's clock when it answered, epoch ms: what is left is expireAt − serverTime" })
  serverTime: number;
  @ApiProperty({
    example: 'Asia/Shanghai',
    description:
      'DISPLAY_TIMEZONE: the IANA zone the service writes times for people in; the console shows times in it',
  })
  displayTimeZone: string;
  @ApiProperty({
    enum: ADMIN_MODES,
    description: 'ADMIN_MODE: `three` when the system, security and audit administrators are kept apart (三员分立)',
  })
  adminMode: AdminMode;
  @ApiProperty({
    type: 'integer',
    enum: [0, 1, 2],
    description: 'login strategy mfaMode: 0 no login asks a code, 1 those who enabled TOTP, 2 everyone',
  })
  mfaMode: 0 | 1 | 2;
}

const nullableString = { type: ['string', 'null'] } as const;

/**
 * /sys/me/info's OK answer for Fastify's response serializer (fast-json-stringify, compiled once
 * from this schema) instead of JSON.stringify: the console polls this route and the bench's (3)
 * drives it, and the compiled serializer costs fewer instructions a request. The envelope
 * { success, code, message, data } around MeInfoDto's fields; only 200 is described, so errors (never 200) keep their own serialization.
 * A field not listed here is not sent: test/docs/api-docs.e2e-spec.ts keeps it equal to MeInfoDto.
 */
export const ME_INFO_RESPONSE = {
  200: {
    type: 'object',
    properties: {
      success: { type: 'boolean' },
      code: { type: 'string' },
      message: { type: 'string' },
      data: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          username: { type: 'string' },
          name: { type: 'string' },
          mobile: nullableString,
          email: nullableString,
          permissions: { type: 'array', items: { type: 'string' } },
          tempUser: { type: 'boolean' },
          mfaEnabled: { type: 'boolean' },
          expireAt: { type: 'number' },
          serverTime: { type: 'number' },
          displayTimeZone: { type: 'string' },
          adminMode: { type: 'string' },
          mfaMode: { type: 'integer' },
        },
      },
    },
  },
} as const;

/** /sys/user/export: the list's filters without paging, and the export's options. */
export class ExportUsersDto extends IntersectionType(
  OmitType(ListUsersDto, ['pageNum', 'pageSize'] as const),
  ExportOptionsDto,
) {}

/** The largest xlsx /sys/user/import takes, and its most rows (the header row not counted). */
export const IMPORT_MAX_BYTES = 5 * 1024 * 1024;
export const IMPORT_MAX_ROWS = 5_000;

export class ImportUsersDto {
  @ApiProperty({
    description: `base64 of an xlsx made from /sys/user/importTemplate (at most ${IMPORT_MAX_BYTES} bytes, ${IMPORT_MAX_ROWS} rows)`,
  })
  @IsString()
  @MinLength(1)
  @MaxLength(Math.ceil(IMPORT_MAX_BYTES / 3) * 4 + 4)
  file: string;

  @ApiPropertyOptional({ description: 'check every row and answer as an import would, without creating anyone' })
  @Optional()
  @IsBoolean()
  dryRun?: boolean;
}

export class ImportRowErrorDto {
  @ApiProperty({ description: 'the sheet row (the header is row 1)' }) row: number;
  @ApiProperty() field: string;
  @ApiProperty() message: string;
}

export class ImportUsersResultDto {
  @ApiProperty({ description: 'data rows read' }) total: number;
  @ApiProperty({ description: 'users created (0 on a dry run)' }) created: number;
  @ApiProperty({
    type: [ImportRowErrorDto],
    description: 'always empty on OK: any row error answers VALIDATION_FAILED',
  })
  errors: ImportRowErrorDto[];
}
