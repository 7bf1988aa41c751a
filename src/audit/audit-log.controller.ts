import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import { RequirePermissions } from '../common/auth-context';
import { AuditLogService } from './audit-log.service';
import { AuditRowDto, ListAuditLogDto } from './dto/list-audit-log.dto';
import { ApiDoc } from '../common/api-docs';

@ApiTags('audit log')
@ApiSecurity('Admin-Token')
@Controller('sys/auditLog')
export class AuditLogController {
  constructor(private readonly audit: AuditLogService) {}

  @Post('list') @HttpCode(200) @RequirePermissions('sys:auditLog:list')
  @ApiDoc('Search the audit log of administrative actions (administrator and target by prefix; detail old → new)', { data: AuditRowDto, shape: 'page' })
  list(@Body() dto: ListAuditLogDto) {
    return this.audit.list(dto);
  }
}
