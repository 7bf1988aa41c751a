import { Body, Controller, HttpCode, Post, StreamableFile } from '@nestjs/common';
import { ApiProduces, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { Actor, CurrentActor, RequirePermissions } from '../common/auth-context';
import { csvFile } from '../common/csv-file';
import { ExportLoginLogDto, ListLoginLogDto, LoginLogRowDto } from './dto/list-login-log.dto';
import { ApiEnvelope } from '../common/api-envelope';
import { LoginLogService } from './login-log.service';

@ApiTags('login log')
@ApiSecurity('Admin-Token')
@Controller('sys/loginLog')
export class LoginLogController {
  constructor(private readonly logs: LoginLogService) {}

  @Post('list') @HttpCode(200) @RequirePermissions('sys:loginLog:list')
  @ApiEnvelope(LoginLogRowDto, 'page')
  list(@Body() dto: ListLoginLogDto) {
    return this.logs.list(dto);
  }

  /** Contract §10: the list's records as streamed CSV; bad filters answer VALIDATION_FAILED before any byte. */
  @Post('export') @HttpCode(200) @RequirePermissions('sys:loginLog:export')
  @ApiProduces('text/csv')
  async export(@Body() dto: ExportLoginLogDto, @CurrentActor() actor: Actor): Promise<StreamableFile> {
    return csvFile(await this.logs.exportCsv(dto, actor), 'login-log');
  }
}
