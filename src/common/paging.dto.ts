import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, Max, Min } from 'class-validator';

import { FormInt } from './form-body';
import { Optional } from './optional';

export class PagingDto {
  @ApiPropertyOptional({ type: Number, default: 1, minimum: 1 })
  @Optional()
  @FormInt()
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  pageNum: number = 1;

  @ApiPropertyOptional({ type: Number, default: 10, minimum: 1, maximum: 200 })
  @Optional()
  @FormInt()
  @IsInt()
  @Min(1)
  @Max(200)
  pageSize: number = 10;
}

export interface Page<T> {
  total: number;
  rows: T[];
}
