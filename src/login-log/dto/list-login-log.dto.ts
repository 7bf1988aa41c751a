import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsDateString, IsIn, IsString, MaxLength } from 'class-validator';
import { Optional } from '../../common/optional';
import { PagingDto } from '../../common/paging.dto';
import { LoginStatus, LoginTypes } from '../login-log.entity';

export class ListLoginLogDto extends PagingDto {
  @ApiPropertyOptional() @Optional() @IsString() @MaxLength(128)
  account?: string;

  @ApiPropertyOptional({ enum: LoginStatus }) @Optional() @IsIn(Object.values(LoginStatus))
  status?: LoginStatus;

  @ApiPropertyOptional({ enum: LoginTypes }) @Optional() @IsIn(Object.values(LoginTypes))
  loginType?: LoginTypes;

  @ApiPropertyOptional() @Optional() @IsString() @MaxLength(64)
  ip?: string;

  @ApiPropertyOptional({ description: 'ISO 8601, inclusive' }) @Optional() @IsDateString()
  beginTime?: string;

  @ApiPropertyOptional({ description: 'ISO 8601, inclusive' }) @Optional() @IsDateString()
  endTime?: string;
}
