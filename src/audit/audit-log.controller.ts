import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import { RequirePermissions } from '../common/auth-context';
import { ApiEnvelope } from '../common/api-envelope';
import { AuditLogService } from './audit-log.service';
import { AuditRowDto, ListAuditLogDto } from './dto/list-audit-log.dto';

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
}
