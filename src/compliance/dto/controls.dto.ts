import { ApiProperty } from '@nestjs/swagger';

import type { ControlState } from '../controls';

export class ControlDto {
  @ApiProperty({ example: 'threeAdmins' }) id: string;
  @ApiProperty({ example: '8.1.4.2 d, 8.1.5.1–8.1.5.3', description: 'the GB/T 22239-2019 clause(s) it serves' })
  clause: string;
  @ApiProperty({ description: "in the caller's language" }) name: string;
  @ApiProperty({ enum: ['on', 'partial', 'off'], description: '`partial`: on, with a gap the detail names' })
  state: ControlState;
  @ApiProperty({ description: "what the service found, in the caller's language" }) detail: string;
}

export class OutsideControlDto {
  @ApiProperty({ example: 'tls' }) id: string;
  @ApiProperty({ example: '8.1.4.1 c' }) clause: string;
  @ApiProperty() name: string;
  @ApiProperty({ description: 'what the operator does outside the service' }) detail: string;
}

export class BaselineValuesDto {
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'login strategy fields and their values' })
  login: Record<string, unknown>;
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'account strategy fields and their values' })
  user: Record<string, unknown>;
}

export class ControlsDto {
  @ApiProperty({ type: [ControlDto] }) controls: ControlDto[];
  @ApiProperty({ type: [OutsideControlDto], description: 'left to the operator' }) outside: OutsideControlDto[];
  @ApiProperty({ type: BaselineValuesDto, description: 'the 等保三级 baseline of the strategy fields' })
  baseline: BaselineValuesDto;
}
