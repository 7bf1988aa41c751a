import { Body, Controller, Headers, HttpCode, Post, StreamableFile } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';

import { ApiDoc } from '../common/api-docs';
import { AccessDenied, validationFailed } from '../common/app.exception';
import type { Actor } from '../common/auth-context';
import { CurrentActor, missingCodes, OrPermissions, RequirePermissions } from '../common/auth-context';
import { ErrorCode } from '../common/error-code';
import { exportRequest } from '../common/export-table';
import { seesPii } from '../common/pii-mask';
import { localeOf } from '../common/texts';
import { NoInputDto } from '../common/validation.pipe';
import { AppConfig } from '../config/app-config';
import { PasswordTransport } from '../crypto/password-transport';
import { AccountStateService } from './account-state.service';
import {
  CreatedUserDto,
  CreateUserDto,
  ExportUsersDto,
  GrantRolesDto,
  IMPORT_MAX_BYTES,
  IMPORT_MAX_ROWS,
  ImportUsersDto,
  ImportUsersResultDto,
  ListUsersDto,
  ResetPasswordDto,
  ResetPasswordResultDto,
  UpdateUserDto,
  UserIdDto,
  UserIdsDto,
  UserRowDto,
} from './dto/user.dto';
import { rolesAlone, UserAdminService } from './user-admin.service';
import { UserSheetService } from './user-sheet.service';

@ApiTags('users')
@ApiSecurity('Admin-Token')
@Controller('sys/user')
export class UserController {
  constructor(
    private readonly accounts: UserAdminService,
    private readonly states: AccountStateService,
    private readonly rsa: PasswordTransport,
    private readonly sheets: UserSheetService,
    private readonly config: AppConfig,
  ) {}

  /** The roles given must lie within the caller's codes (a session's, or an API key's). */
  @Post('create')
  @HttpCode(200)
  @RequirePermissions('sys:user:create')
  @ApiDoc("Create a user (roles only within the caller's codes)", {
    data: CreatedUserDto,
    errors: [
      ErrorCode.PASSWORD_TOO_SHORT,
      ErrorCode.PASSWORD_TOO_LONG,
      ErrorCode.PASSWORD_NEEDS_DIGIT,
      ErrorCode.PASSWORD_NEEDS_UPPER,
      ErrorCode.PASSWORD_NEEDS_LOWER,
      ErrorCode.PASSWORD_NEEDS_SYMBOL,
    ],
  })
  async create(@Body() dto: CreateUserDto, @CurrentActor() actor: Actor) {
    return this.accounts.create(
      {
        ...dto,
        password: dto.password === undefined ? undefined : this.rsa.decrypt('password', dto.password),
      },
      [...actor.codes],
      actor,
    );
  }

  @Post('list')
  @HttpCode(200)
  @RequirePermissions('sys:user:list')
  @ApiDoc('List users (without any hash)', { data: UserRowDto, shape: 'page' })
  list(@Body() dto: ListUsersDto, @CurrentActor() actor: Actor) {
    return this.accounts.list(dto, seesPii(actor.codes));
  }

  @Post('detail')
  @HttpCode(200)
  @RequirePermissions('sys:user:list')
  @ApiDoc('One user as a list row, with the mobile and e-mail whole to a holder of sys:user:pii', {
    data: UserRowDto,
    errors: [ErrorCode.NOT_FOUND],
    description:
      'Without sys:user:pii the mobile and e-mail are masked as in /sys/user/list (`138****5678`, `a***@example.com`). ' +
      'Shown whole, audited as `user.pii.view`.',
  })
  detail(@Body() dto: UserIdDto, @CurrentActor() actor: Actor) {
    return this.accounts.detail(dto.id, actor);
  }

  @Post('importTemplate')
  @HttpCode(200)
  @RequirePermissions('sys:user:create')
  @ApiDoc("The xlsx template of /sys/user/import (headers in the caller's language)", {
    produces: {
      contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      description:
        'a download (user-import.xlsx): one header row, user name, name, mobile, e-mail, roles (role codes separated by commas)',
    },
  })
  template(@Body() _dto: NoInputDto, @Headers('accept-language') language?: string): Promise<StreamableFile> {
    return this.sheets.template(localeOf(language));
  }

  /** All or nothing: every row is checked before anyone is created. */
  @Post('import')
  @HttpCode(200)
  @RequirePermissions('sys:user:create')
  @ApiDoc('Create users from an xlsx made from /sys/user/importTemplate (all or nothing; dryRun only checks)', {
    data: ImportUsersResultDto,
    description:
      `At most ${IMPORT_MAX_ROWS} rows and ${IMPORT_MAX_BYTES} bytes. Every row is checked with the rules of /sys/user/create (roles only within the caller's codes, identifiers unique among users and rows) and needs a mobile or an e-mail; ` +
      'any refusal answers VALIDATION_FAILED with `data.errors[]` of `{ row, field, message }` for every row, and nobody is created. ' +
      "Each user's password is generated and sent to that user alone (e-mail, SMS), never answered. Audited as `user.import` with the count.",
  })
  import(@Body() dto: ImportUsersDto, @CurrentActor() actor: Actor) {
    return this.sheets.import(dto, actor);
  }

  /** The list's filters, all pages. */
  @Post('export')
  @HttpCode(200)
  @RequirePermissions('sys:user:list')
  @ApiDoc("Export the users of the list's filters as CSV or xlsx", {
    produces: {
      contentType: 'text/csv',
      description:
        "a download (users.csv, or users.xlsx with format xlsx), streamed; columns labels (default): headers in the request's language, states as labels, local times; fields: the list's fields, raw codes, ISO 8601 UTC",
    },
  })
  export(
    @Body() dto: ExportUsersDto,
    @CurrentActor() actor: Actor,
    @Headers('accept-language') language?: string,
  ): StreamableFile {
    return this.sheets.export(
      dto,
      exportRequest(dto, localeOf(language), this.config.DISPLAY_TIMEZONE),
      seesPii(actor.codes),
    );
  }

  /**
   * Name, mobile, e-mail, roles (within the caller's codes); live sessions follow. A holder of
   * sys:user:grant without sys:user:update (three mode's security administrator) changes the roles
   * alone here, as through /sys/user/grant.
   */
  @Post('update')
  @HttpCode(200)
  @RequirePermissions('sys:user:update')
  @OrPermissions('sys:user:grant')
  @ApiDoc("Update a user's name, mobile, e-mail or roles (roles only within the caller's codes)", {
    data: null,
    errors: [ErrorCode.NOT_FOUND],
    description:
      'Partial: fields left out stay. A mobile or e-mail another user has, or an unknown role, answers VALIDATION_FAILED; ' +
      "a user holding codes the caller does not, or a role change that would leave no enabled, unlocked holder of `*`, answers FORBIDDEN. The user's live sessions take the new profile and codes. " +
      'A caller holding `sys:user:grant` but not `sys:user:update` may send `{ id, roles }` only (anything else FORBIDDEN), with the rules of /sys/user/grant.',
  })
  async update(@Body() dto: UpdateUserDto, @CurrentActor() actor: Actor) {
    if (missingCodes(actor.codes, ['sys:user:update']).length && !rolesAlone(dto)) {
      throw new AccessDenied(['sys:user:update']);
    }
    await this.accounts.update(dto, actor);
  }

  /**
   * The roles alone, for a holder of sys:user:grant without sys:user:update: in three mode the security
   * administrator, since no user holds both (docs/security.md#three-administrators).
   */
  @Post('grant')
  @HttpCode(200)
  @RequirePermissions('sys:user:grant')
  @ApiDoc("Replace a user's roles", {
    data: null,
    errors: [ErrorCode.NOT_FOUND],
    description:
      "As /sys/user/update with only `roles`. Single mode: roles within the caller's codes, on a user whose codes the caller holds (FORBIDDEN otherwise). " +
      "ADMIN_MODE=three: the user's roles together within one administrator set (VALIDATION_FAILED otherwise); one's own roles answer FORBIDDEN.",
  })
  async grant(@Body() dto: GrantRolesDto, @CurrentActor() actor: Actor) {
    await this.accounts.update({ id: dto.id, roles: dto.roles }, actor);
  }

  /** A soft delete; not oneself, not the last usable holder of `*`. */
  @Post('delete')
  @HttpCode(200)
  @RequirePermissions('sys:user:delete')
  @ApiDoc('Delete a user (soft: no login, not listed, sessions end, identifiers stay taken)', {
    data: null,
    errors: [ErrorCode.NOT_FOUND],
    description:
      "One's own account, a user holding codes the caller does not, or the last enabled, unlocked holder of `*` answers FORBIDDEN.",
  })
  async delete(@Body() dto: UserIdDto, @CurrentActor() actor: Actor) {
    await this.accounts.remove(dto.id, actor);
  }

  @Post('lock')
  @HttpCode(200)
  @RequirePermissions('sys:user:lock')
  @ApiDoc('Lock users and end their sessions', {
    data: null,
    errors: [ErrorCode.NOT_FOUND],
    description:
      '`{ id }` or `{ ids }` (at most 100), all or nothing: every user is found and checked before any changes; each is audited on its own. ' +
      "One's own account, a user holding codes the caller does not, or leaving no enabled, unlocked holder of `*` answers FORBIDDEN.",
  })
  async lock(@Body() dto: UserIdsDto, @CurrentActor() actor: Actor) {
    await this.states.changeState(idsOf(dto), 'lock', actor);
  }

  @Post('unlock')
  @HttpCode(200)
  @RequirePermissions('sys:user:unlock')
  @ApiDoc('Unlock users (their failure count starts again)', {
    data: null,
    errors: [ErrorCode.NOT_FOUND],
    description:
      '`{ id }` or `{ ids }` (at most 100), all or nothing: every user is found and checked before any changes; each user that was locked is unlocked and audited on its own. ' +
      'An account that is not locked answers OK and keeps its failure count; a user holding codes the caller does not answers FORBIDDEN.',
  })
  async unlock(@Body() dto: UserIdsDto, @CurrentActor() actor: Actor) {
    await this.states.changeState(idsOf(dto), 'unlock', actor);
  }

  @Post('disable')
  @HttpCode(200)
  @RequirePermissions('sys:user:disable')
  @ApiDoc('Disable users and end their sessions', {
    data: null,
    errors: [ErrorCode.NOT_FOUND],
    description:
      '`{ id }` or `{ ids }` (at most 100), all or nothing: every user is found and checked before any changes; each is audited on its own. ' +
      "One's own account, a user holding codes the caller does not, or leaving no enabled, unlocked holder of `*` answers FORBIDDEN.",
  })
  async disable(@Body() dto: UserIdsDto, @CurrentActor() actor: Actor) {
    await this.states.changeState(idsOf(dto), 'disable', actor);
  }

  @Post('enable')
  @HttpCode(200)
  @RequirePermissions('sys:user:enable')
  @ApiDoc('Enable users (their failure count starts again)', {
    data: null,
    errors: [ErrorCode.NOT_FOUND],
    description:
      '`{ id }` or `{ ids }` (at most 100), all or nothing: every user is found and checked before any changes; each user that was disabled is enabled and audited on its own. ' +
      'An account that is not disabled answers OK and keeps its failure count; a user holding codes the caller does not answers FORBIDDEN.',
  })
  async enable(@Body() dto: UserIdsDto, @CurrentActor() actor: Actor) {
    await this.states.changeState(idsOf(dto), 'enable', actor);
  }

  @Post('resetPass')
  @HttpCode(200)
  @RequirePermissions('sys:user:resetPass')
  @ApiDoc(
    "Reset a user's password (typed by the administrator, else generated and answered once when DEFAULT_PASSWORD is unset)",
    {
      data: ResetPasswordResultDto,
      errors: [
        ErrorCode.NOT_FOUND,
        ErrorCode.PASSWORD_TOO_SHORT,
        ErrorCode.PASSWORD_TOO_LONG,
        ErrorCode.PASSWORD_NEEDS_DIGIT,
        ErrorCode.PASSWORD_NEEDS_UPPER,
        ErrorCode.PASSWORD_NEEDS_LOWER,
        ErrorCode.PASSWORD_NEEDS_SYMBOL,
      ],
      description:
        "data is null unless the service generated the password (groups of four joined by -, without 0 O 1 l I). A typed password is checked by the complexity rules. One's own account (that is /sys/me/pass/update), or a user holding codes the caller does not, answers FORBIDDEN.",
    },
  )
  async resetPass(@Body() dto: ResetPasswordDto, @CurrentActor() actor: Actor) {
    const typed = dto.password === undefined ? undefined : this.rsa.decrypt('password', dto.password);
    return this.accounts.resetPassword(dto.id, actor, typed);
  }
}

/** `{ id }` or `{ ids }`, not both (the DTO has checked each). */
function idsOf(dto: UserIdsDto): string[] {
  if (dto.id !== undefined && dto.ids !== undefined) throw validationFailed('validation.idOrIds', 'ids');
  return dto.ids ?? [dto.id!];
}
