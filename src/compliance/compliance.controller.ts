import { Body, Controller, Headers, HttpCode, Post } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';

import { ApiDoc } from '../common/api-docs';
import { RequirePermissions } from '../common/auth-context';
import { localeOf } from '../common/texts';
import { NoInputDto } from '../common/validation.pipe';
import { ComplianceService } from './compliance.service';
import { ControlsDto } from './dto/controls.dto';

@ApiTags('compliance')
@ApiSecurity('Admin-Token')
@Controller('sys/compliance')
export class ComplianceController {
  constructor(private readonly compliance: ComplianceService) {}

  @Post('controls')
  @HttpCode(200)
  @RequirePermissions('sys:strategy:login:info')
  @ApiDoc('Which 等保三级 controls are in force, with their clauses, and what is left to the operator', {
    data: ControlsDto,
    description: 'Names and details in the language of Accept-Language. For the baseline dialog of the strategy page.',
  })
  controls(@Body() _body: NoInputDto, @Headers('accept-language') language?: string): Promise<ControlsDto> {
    return this.compliance.controls(localeOf(language));
  }
}
