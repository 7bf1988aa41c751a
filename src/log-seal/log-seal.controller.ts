import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';

import { actedBy } from '../audit/audit-log.service';
import { ApiDoc } from '../common/api-docs';
import { Actor, CurrentActor, RequirePermissions } from '../common/auth-context';
import { NoInputDto } from '../common/validation.pipe';
import { VerifyResultDto } from './dto/verify-result.dto';
import { LogVerifier } from './log-verifier';

@ApiTags('audit log')
@ApiSecurity('Admin-Token')
@Controller('sys/auditLog')
export class LogSealController {
  constructor(private readonly verifier: LogVerifier) {}

  @Post('verify')
  @HttpCode(200)
  @RequirePermissions('sys:auditLog:verify')
  @ApiDoc('Verify the seals of the login log and the audit log', {
    data: VerifyResultDto,
    description:
      'First seals every row written until now, then checks both logs row by row (docs/security.md#sealed-logs). ' +
      'Audited as `auditLog.verify` with the answer.',
  })
  verify(@Body() _body: NoInputDto, @CurrentActor() actor: Actor): Promise<VerifyResultDto> {
    return this.verifier.verify(actedBy(actor));
  }
}
