import { ApiProperty } from '@nestjs/swagger';
import { Matches } from 'class-validator';
import { PagingDto } from '../../common/paging.dto';

export class ListOnlineDto extends PagingDto {}

export class KickoutDto {
  @ApiProperty({ description: 'tokenId of a session from the online list' })
  @Matches(/^[0-9a-f]{64}$/, { message: 'tokenId must be the 64-hex id from the session list' })
  tokenId: string;
}
