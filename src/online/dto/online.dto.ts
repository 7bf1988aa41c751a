import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, Matches, MaxLength } from 'class-validator';

import { Optional } from '../../common/optional';
import { PagingDto } from '../../common/paging.dto';

export class ListOnlineDto extends PagingDto {}

/** Every live session, optionally only those whose user name, name or IP contains the keyword. */
export class ListAllOnlineDto extends PagingDto {
  @ApiPropertyOptional({ description: 'part of the user name or name (any case), or of the IP address' })
  @Optional()
  @IsString()
  @MaxLength(64)
  keyword?: string;
}

export class KickoutDto {
  @ApiProperty({ description: 'tokenId of a session from the online list' })
  @Matches(/^[0-9a-f]{64}$/, { message: 'tokenId must be the 64-hex id from the session list' })
  tokenId: string;
}

/** A live session; tokenId is the SHA-256 of the token, never the token. Times are epoch milliseconds. */
export class OnlineSessionRowDto {
  @ApiProperty() tokenId: string;
  @ApiProperty() userId: string;
  @ApiProperty({ type: String, nullable: true }) username: string | null;
  @ApiProperty({ type: String, nullable: true }) name: string | null;
  @ApiProperty() ip: string;
  @ApiProperty({ type: String, nullable: true }) browser: string | null;
  @ApiProperty({ type: String, nullable: true }) os: string | null;
  @ApiProperty({ type: Number }) loginTime: number;
  @ApiProperty({ type: Number, nullable: true }) renewedAt: number | null;
  @ApiProperty({ type: Number }) expireAt: number;
  @ApiProperty() temp: boolean;
  @ApiPropertyOptional({ description: "the caller's own session (the session making the request)" }) current?: boolean;
}
