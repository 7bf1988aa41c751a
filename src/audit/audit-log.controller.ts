import { Body, Controller, Headers, HttpCode, Post, StreamableFile } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';

import { ApiDoc } from '../common/api-docs';
import { Actor, CurrentActor, RequirePermissions } from '../common/auth-context';
import { exportRequest } from '../common/export-table';
import { seesPii } from '../common/pii-mask';
import { localeOf } from '../common/texts';
import { AppConfig } from '../config/app-config';
import { AuditLogService } from './audit-log.service';
import { AuditRowDto, ExportAuditLogDto, ListAuditLogDto } from './dto/list-audit-log.dto';

@ApiTags('audit log')
@ApiSecurity('Admin-Token')
@Controller('sys/auditLog')
export class AuditLogController {
  constructor(
    private readonly config: AppConfig,
    private readonly audit: AuditLogService,
  ) {}

  @Post('list')
  @HttpCode(200)
  @RequirePermissions('sys:auditLog:list')
  @ApiDoc('Search the audit log of administrative actions (administrator and target by prefix; detail old → new)', {
    data: AuditRowDto,
    shape: 'page',
  })
  list(@Body() dto: ListAuditLogDto, @CurrentActor() actor: Actor) {
    return this.audit.list(dto, seesPii(actor.codes));
  }

  /** The list's rows as streamed CSV or xlsx; bad filters answer VALIDATION_FAILED before any byte. */
  @Post('export')
  @HttpCode(200)
  @RequirePermissions('sys:auditLog:export')
  @ApiDoc('Export the audit log as CSV or xlsx (the filters of /sys/auditLog/list, without paging)', {
    produces: {
      contentType: 'text/csv',
      description:
        "text/csv; charset=utf-8, a download (audit-log.csv): a UTF-8 BOM, a header row, one line per record, newest first, streamed; with format xlsx the same rows as application/vnd.openxmlformats-officedocument.spreadsheetml.sheet (audit-log.xlsx). columns labels (default): headers in the request's language, labels, local times; fields: the list's row fields, raw codes, ISO 8601 UTC",
    },
    description:
      'Audited as `auditLog.export` with its filters before the first byte. Bad filters answer VALIDATION_FAILED (the envelope) before any byte; a failure after the first byte breaks the download off rather than end a truncated file.',
  })
  async export(
    @Body() dto: ExportAuditLogDto,
    @CurrentActor() actor: Actor,
    @Headers('accept-language') language?: string,
  ): Promise<StreamableFile> {
    return this.audit.export(
      dto,
      actor,
      exportRequest(dto, localeOf(language), this.config.DISPLAY_TIMEZONE),
      seesPii(actor.codes),
    );
  }
}
