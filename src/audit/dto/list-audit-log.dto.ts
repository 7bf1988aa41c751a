import { ApiProperty, ApiPropertyOptional, IntersectionType, OmitType } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';

import { ExportOptionsDto } from '../../common/export-table';
import { IsInstant } from '../../common/instant';
import { Optional } from '../../common/optional';
import { PagingDto } from '../../common/paging.dto';

export class ListAuditLogDto extends PagingDto {
  @ApiPropertyOptional({ example: 'user.lock' })
  @Optional()
  @IsString()
  @MaxLength(64)
  action?: string;

  @ApiPropertyOptional({ description: "a prefix of the acting administrator's user name" })
  @Optional()
  @IsString()
  @MaxLength(64)
  username?: string;

  @ApiPropertyOptional({
    description:
      'a prefix of what the action was on: its id (user id, role code, setting group) or its name (user name, role name)',
  })
  @Optional()
  @IsString()
  @MaxLength(128)
  target?: string;

  @ApiPropertyOptional({ description: 'ISO 8601, inclusive' })
  @Optional()
  @IsInstant()
  beginTime?: string;

  @ApiPropertyOptional({ description: 'ISO 8601, inclusive' })
  @Optional()
  @IsInstant()
  endTime?: string;
}

/** /sys/auditLog/export takes the list's filters without paging. */
export class ExportAuditLogDto extends IntersectionType(
  OmitType(ListAuditLogDto, ['pageNum', 'pageSize'] as const),
  ExportOptionsDto,
) {}

/** A row of /sys/auditLog/list. */
export class AuditRowDto {
  @ApiProperty() id: string;
  @ApiProperty({ description: 'the administrator who acted' }) userId: string;
  @ApiProperty({ type: String, nullable: true }) username: string | null;
  @ApiProperty({ example: 'user.lock' }) action: string;
  @ApiProperty({ type: String, nullable: true }) target: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: "the target user's user name (a role's name) when the action was recorded",
  })
  targetName: string | null;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: 'what changed, or null; mobiles and e-mails in it masked unless the caller holds sys:user:pii',
  })
  detail: Record<string, unknown> | null;
  @ApiProperty() ip: string;
  @ApiProperty({ format: 'date-time' }) createTime: string;
}
