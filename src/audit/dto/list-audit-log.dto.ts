import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';
import { Optional } from '../../common/optional';
import { PagingDto } from '../../common/paging.dto';

export class ListAuditLogDto extends PagingDto {
  @ApiPropertyOptional({ example: 'user.lock' }) @Optional() @IsString() @MaxLength(64)
  action?: string;

  @ApiPropertyOptional({ description: 'user name of the administrator' }) @Optional() @IsString() @MaxLength(64)
  username?: string;

  @ApiPropertyOptional({ description: 'user id or setting group the action was on' }) @Optional() @IsString() @MaxLength(128)
  target?: string;
}
