import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Matches } from 'class-validator';

import { PagingDto } from '../../common/paging.dto';

export class ListOnlineDto extends PagingDto {}

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
  @ApiPropertyOptional({ description: "the caller's own session (/sys/me/sessions only)" }) current?: boolean;
}
