import { Body, Controller, HttpCode, Post, StreamableFile } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';

import { ApiDoc } from '../common/api-docs';
import { Actor, CurrentActor, RequirePermissions } from '../common/auth-context';
import { csvFile } from '../common/csv-file';
import { ExportLoginLogDto, ListLoginLogDto, LoginLogRowDto } from './dto/list-login-log.dto';
import { LoginLogService } from './login-log.service';

@ApiTags('login log')
@ApiSecurity('Admin-Token')
@Controller('sys/loginLog')
export class LoginLogController {
  constructor(private readonly logs: LoginLogService) {}

  @Post('list')
  @HttpCode(200)
  @RequirePermissions('sys:loginLog:list')
  @ApiDoc('Search the login log (account and IP by prefix, newest first)', { data: LoginLogRowDto, shape: 'page' })
  list(@Body() dto: ListLoginLogDto) {
    return this.logs.list(dto);
  }

  /** The list's records as streamed CSV; bad filters answer VALIDATION_FAILED before any byte. */
  @Post('export')
  @HttpCode(200)
  @RequirePermissions('sys:loginLog:export')
  @ApiDoc('Export the login log as CSV (the filters of /sys/loginLog/list, without paging)', {
    produces: {
      contentType: 'text/csv',
      description:
        "text/csv; charset=utf-8, a download (login-log.csv): a UTF-8 BOM, a header row of the list's row fields, one line per record, newest first, streamed",
    },
    description:
      'Audited as `loginLog.export` with its filters before the first byte. Bad filters answer VALIDATION_FAILED (the envelope) before any CSV; a failure after the first byte breaks the download off rather than end a truncated file.',
  })
  async export(@Body() dto: ExportLoginLogDto, @CurrentActor() actor: Actor): Promise<StreamableFile> {
    return csvFile(await this.logs.exportCsv(dto, actor), 'login-log');
  }
}
