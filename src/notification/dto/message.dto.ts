import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsBoolean, IsString, MaxLength } from 'class-validator';

import { FormArray, FormBool } from '../../common/form-body';
import { Optional } from '../../common/optional';
import { PagingDto } from '../../common/paging.dto';
import { NotificationKind } from '../notification.types';

export class ListMessagesDto extends PagingDto {
  @ApiPropertyOptional({ description: 'only messages not yet marked read', default: false })
  @Optional()
  @FormBool()
  @IsBoolean()
  unreadOnly?: boolean;
}

export class ReadMessagesDto {
  @ApiProperty({ type: [String], description: "ids of the caller's messages; others are ignored" })
  @FormArray()
  @IsArray()
  @ArrayMaxSize(200)
  @IsString({ each: true })
  @MaxLength(36, { each: true })
  ids: string[];
}

/** A site message as the API and the SSE stream show it (rows carry their id). */
export class SiteMessageDto {
  @ApiProperty() id: string;
  @ApiProperty({ enum: NotificationKind, enumName: 'MessageKind' }) kind: NotificationKind;
  @ApiProperty() title: string;
  @ApiProperty() content: string;
  @ApiProperty() read: boolean;
  @ApiProperty({ format: 'date-time' }) createTime: string;
}

export class StreamTicketDto {
  @ApiProperty({ description: 'for GET /sys/message/stream?ticket=…; one use, valid 30 s' }) ticket: string;
}
