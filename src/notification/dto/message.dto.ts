import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsBoolean, IsString, MaxLength } from 'class-validator';
import { FormArray, FormBool } from '../../common/form-body';
import { Optional } from '../../common/optional';
import { PagingDto } from '../../common/paging.dto';

export class ListMessagesDto extends PagingDto {
  @ApiPropertyOptional({ description: 'only messages not yet marked read', default: false })
  @Optional() @FormBool() @IsBoolean()
  unreadOnly?: boolean;
}

export class ReadMessagesDto {
  @ApiProperty({ type: [String], description: 'ids of the caller\'s messages; others are ignored' })
  @FormArray() @IsArray() @ArrayMaxSize(200) @IsString({ each: true }) @MaxLength(36, { each: true })
  ids: string[];
}
