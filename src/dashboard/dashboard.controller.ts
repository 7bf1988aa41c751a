import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';

import { ApiDoc } from '../common/api-docs';
import type { AuthContext } from '../common/auth-context';
import { CurrentAuth } from '../common/auth-context';
import { NoInputDto } from '../common/validation.pipe';
import { DashboardService } from './dashboard.service';
import { DashboardSummaryDto } from './dto/summary.dto';

@ApiTags('dashboard')
@ApiSecurity('Admin-Token')
@Controller('sys/dashboard')
export class DashboardController {
  constructor(private readonly dashboard: DashboardService) {}

  @Post('summary')
  @HttpCode(200)
  @ApiDoc("The home page's figures: users, logins, sessions, expiring passwords, baseline gaps", {
    data: DashboardSummaryDto,
    description:
      'Any logged-in user; each block only with the code that reads its source (see each field). Days and hours in DISPLAY_TIMEZONE.',
  })
  summary(@Body() _body: NoInputDto, @CurrentAuth() auth: AuthContext): Promise<DashboardSummaryDto> {
    return this.dashboard.summary(auth.permissions);
  }
}
