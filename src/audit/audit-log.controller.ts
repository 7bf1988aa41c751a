import { Body, Controller, HttpCode, Post, StreamableFile } from '@nestjs/common';
import { ApiProduces, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { Actor, CurrentActor, RequirePermissions } from '../common/auth-context';
import { csvFile } from '../common/csv-file';
import { ApiEnvelope } from '../common/api-envelope';
import { AuditLogService } from './audit-log.service';
import { AuditRowDto, ExportAuditLogDto, ListAuditLogDto } from './dto/list-audit-log.dto';

@ApiTags('audit log')
@ApiSecurity('Admin-Token')
@Controller('sys/auditLog')
export class AuditLogController {
  constructor(private readonly audit: AuditLogService) {}

  @Post('list') @HttpCode(200) @RequirePermissions('sys:auditLog:list')
  @ApiEnvelope(AuditRowDto, 'page')
  list(@Body() dto: ListAuditLogDto) {
    return this.audit.list(dto);
  }

  /** Contract §10: the list's rows as streamed CSV; bad filters answer VALIDATION_FAILED before any byte. */
  @Post('export') @HttpCode(200) @RequirePermissions('sys:auditLog:export')
  @ApiProduces('text/csv')
  async export(@Body() dto: ExportAuditLogDto, @CurrentActor() actor: Actor): Promise<StreamableFile> {
    return csvFile(await this.audit.exportCsv(dto, actor), 'audit-log');
  }
}
