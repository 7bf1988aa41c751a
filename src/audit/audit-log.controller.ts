import { Body, Controller, HttpCode, Post, StreamableFile } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';

import { ApiDoc } from '../common/api-docs';
import { Actor, CurrentActor, RequirePermissions } from '../common/auth-context';
import { csvFile } from '../common/csv-file';
import { AuditLogService } from './audit-log.service';
import { AuditRowDto, ExportAuditLogDto, ListAuditLogDto } from './dto/list-audit-log.dto';

@ApiTags('audit log')
@ApiSecurity('Admin-Token')
@Controller('sys/auditLog')
export class AuditLogController {
  constructor(private readonly audit: AuditLogService) {}

  @Post('list')
  @HttpCode(200)
  @RequirePermissions('sys:auditLog:list')
  @ApiDoc('Search the audit log of administrative actions (administrator and target by prefix; detail old → new)', {
    data: AuditRowDto,
    shape: 'page',
  })
  list(@Body() dto: ListAuditLogDto) {
    return this.audit.list(dto);
  }

  /** The list's rows as streamed CSV; bad filters answer VALIDATION_FAILED before any byte. */
  @Post('export')
  @HttpCode(200)
  @RequirePermissions('sys:auditLog:export')
  @ApiDoc('Export the audit log as CSV (the filters of /sys/auditLog/list, without paging)', {
    produces: {
      contentType: 'text/csv',
      description:
        "text/csv; charset=utf-8, a download (audit-log.csv): a UTF-8 BOM, a header row of the list's row fields, one line per record, newest first, streamed",
    },
    description:
      'Audited as `auditLog.export` with its filters before the first byte. Bad filters answer VALIDATION_FAILED (the envelope) before any CSV; a failure after the first byte breaks the download off rather than end a truncated file.',
  })
  async export(@Body() dto: ExportAuditLogDto, @CurrentActor() actor: Actor): Promise<StreamableFile> {
    return csvFile(await this.audit.exportCsv(dto, actor), 'audit-log');
  }
}
