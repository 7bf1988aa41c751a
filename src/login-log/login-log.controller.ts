import { Body, Controller, Headers, HttpCode, Post, StreamableFile } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';

import { ApiDoc } from '../common/api-docs';
import { Actor, CurrentActor, RequirePermissions } from '../common/auth-context';
import { exportRequest } from '../common/export-table';
import { seesPii } from '../common/pii-mask';
import { localeOf } from '../common/texts';
import { AppConfig } from '../config/app-config';
import { ExportLoginLogDto, ListLoginLogDto, LoginLogRowDto } from './dto/list-login-log.dto';
import { LoginLogService } from './login-log.service';

@ApiTags('login log')
@ApiSecurity('Admin-Token')
@Controller('sys/loginLog')
export class LoginLogController {
  constructor(
    private readonly config: AppConfig,
    private readonly logs: LoginLogService,
  ) {}

  @Post('list')
  @HttpCode(200)
  @RequirePermissions('sys:loginLog:list')
  @ApiDoc('Search the login log (account and IP by prefix, newest first)', { data: LoginLogRowDto, shape: 'page' })
  list(@Body() dto: ListLoginLogDto, @CurrentActor() actor: Actor) {
    return this.logs.list(dto, seesPii(actor.codes));
  }

  /** The list's records as streamed CSV or xlsx; bad filters answer VALIDATION_FAILED before any byte. */
  @Post('export')
  @HttpCode(200)
  @RequirePermissions('sys:loginLog:export')
  @ApiDoc('Export the login log as CSV or xlsx (the filters of /sys/loginLog/list, without paging)', {
    produces: {
      contentType: 'text/csv',
      description:
        "text/csv; charset=utf-8, a download (login-log.csv): a UTF-8 BOM, a header row, one line per record, newest first, streamed; with format xlsx the same rows as application/vnd.openxmlformats-officedocument.spreadsheetml.sheet (login-log.xlsx). columns labels (default): headers in the request's language, labels, local times; fields: the list's row fields, raw codes, ISO 8601 UTC",
    },
    description:
      'Audited as `loginLog.export` with its filters before the first byte. Bad filters answer VALIDATION_FAILED (the envelope) before any byte; a failure after the first byte breaks the download off rather than end a truncated file.',
  })
  async export(
    @Body() dto: ExportLoginLogDto,
    @CurrentActor() actor: Actor,
    @Headers('accept-language') language?: string,
  ): Promise<StreamableFile> {
    return this.logs.export(
      dto,
      actor,
      exportRequest(dto, localeOf(language), this.config.DISPLAY_TIMEZONE),
      seesPii(actor.codes),
    );
  }
}
