import { ApiProperty, ApiPropertyOptional, IntersectionType, OmitType } from '@nestjs/swagger';
import { IsIn, IsString, MaxLength } from 'class-validator';

import { ExportOptionsDto } from '../../common/export-table';
import { IsInstant } from '../../common/instant';
import { Optional } from '../../common/optional';
import { PagingDto } from '../../common/paging.dto';
import { LoginStatus, LoginTypes } from '../login-log.entity';

export class ListLoginLogDto extends PagingDto {
  @ApiPropertyOptional({ description: 'A prefix of the account as typed (`adm` finds `admin`)' })
  @Optional()
  @IsString()
  @MaxLength(128)
  account?: string;

  @ApiPropertyOptional({ enum: LoginStatus, enumName: 'LoginStatus' })
  @Optional()
  @IsIn(Object.values(LoginStatus))
  status?: LoginStatus;

  @ApiPropertyOptional({ enum: LoginTypes, enumName: 'LoginType' })
  @Optional()
  @IsIn(Object.values(LoginTypes))
  loginType?: LoginTypes;

  @ApiPropertyOptional({ description: 'A prefix of the IP (`127.0` finds `127.0.0.1`)' })
  @Optional()
  @IsString()
  @MaxLength(64)
  ip?: string;

  @ApiPropertyOptional({ description: 'ISO 8601, inclusive' })
  @Optional()
  @IsInstant()
  beginTime?: string;

  @ApiPropertyOptional({ description: 'ISO 8601, inclusive' })
  @Optional()
  @IsInstant()
  endTime?: string;
}

/** /sys/loginLog/export takes the list's filters without paging. */
export class ExportLoginLogDto extends IntersectionType(
  OmitType(ListLoginLogDto, ['pageNum', 'pageSize'] as const),
  ExportOptionsDto,
) {}

/** A row of /sys/loginLog/list (row fields, plus its id). */
export class LoginLogRowDto {
  @ApiProperty() id: string;
  @ApiProperty({
    description:
      'The account as typed; a mobile or e-mail masked (`138****5678`, `a***@example.com`) unless the caller holds sys:user:pii',
  })
  account: string;
  @ApiProperty({ type: String, nullable: true }) userName: string | null;
  @ApiProperty({ enum: LoginTypes, enumName: 'LoginType' }) loginType: LoginTypes;
  @ApiProperty({ enum: LoginStatus, enumName: 'LoginStatus' }) status: LoginStatus;
  @ApiProperty() ip: string;
  @ApiProperty({ type: String, nullable: true }) browser: string | null;
  @ApiProperty({ type: String, nullable: true }) os: string | null;
  @ApiProperty({ format: 'date-time' }) loginTime: string;
  @ApiProperty({ type: String, nullable: true, description: "the answer's message in the default language (zh)" })
  failureReason: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'BAD_CREDENTIALS',
    description:
      'the ErrorCode of the answer; ACCOUNT_LOCKED on a passwrong/mfawrong row: this failure locked the account; null on successes and on rows older than the column',
  })
  failureCode: string | null;
}
