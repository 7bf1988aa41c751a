import { ApiProperty } from '@nestjs/swagger';

export class FirstBadDto {
  @ApiProperty({ enum: ['sys_login_log', 'sys_audit_log'] }) table: 'sys_login_log' | 'sys_audit_log';
  @ApiProperty({ description: 'the bad row; for `missing`, the last row gone before the gap' }) id: string;
  @ApiProperty({
    enum: ['altered', 'missing', 'inserted'],
    description:
      'altered: its fields or seal are not what was sealed; missing: a row of the chain is gone; inserted: a row the service did not write',
  })
  reason: 'altered' | 'missing' | 'inserted';
}

/** The answer of /sys/auditLog/verify. */
export class VerifyResultDto {
  @ApiProperty({ description: 'no bad row in either log' }) ok: boolean;
  @ApiProperty({ description: 'sealed rows checked, both logs together' }) checked: number;
  @ApiProperty({ description: 'rows written before sealing began: no seal, never counted as bad' }) unsealed: number;
  @ApiProperty({
    type: FirstBadDto,
    nullable: true,
    description: "the login log's first bad row, else the audit log's",
  })
  firstBad: FirstBadDto | null;
}
