import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { FormInt } from './form-body';

export class PagingDto {
  @ApiPropertyOptional({ type: Number, default: 1, minimum: 1 })
  @IsOptional() @FormInt() @IsInt() @Min(1) @Max(1_000_000)
  pageNum: number = 1;

  @ApiPropertyOptional({ type: Number, default: 10, minimum: 1, maximum: 200 })
  @IsOptional() @FormInt() @IsInt() @Min(1) @Max(200)
  pageSize: number = 10;
}

export interface Page<T> {
  total: number;
  rows: T[];
}
