import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';

import { ApiDoc } from '../common/api-docs';
import type { Actor } from '../common/auth-context';
import { CurrentActor, RequirePermissions } from '../common/auth-context';
import { ErrorCode } from '../common/error-code';
import { NoInputDto } from '../common/validation.pipe';
import { AccessRuleService } from './access-rule.service';
import {
  AccessCheckResultDto,
  AccessRuleDto,
  AccessRuleIdDto,
  CheckAccessDto,
  SaveAccessRuleDto,
} from './dto/access-rule.dto';

const SELF_LOCKOUT =
  'A save after which the caller could not log in from its current IP at this time answers VALIDATION_FAILED and changes nothing.';
const SELF_LOCKOUT_DELETE =
  'The delete of an allow rule after which the caller could not log in from its current IP at this time answers VALIDATION_FAILED (naming `id`) and changes nothing.';

@ApiTags('access rules')
@ApiSecurity('Admin-Token')
@Controller('sys/accessRule')
export class AccessRuleController {
  constructor(private readonly rules: AccessRuleService) {}

  @Post('list')
  @HttpCode(200)
  @RequirePermissions('sys:accessRule:list')
  @ApiDoc('List the login access rules', { data: AccessRuleDto, shape: 'array' })
  list(@Body() _body: NoInputDto) {
    return this.rules.list();
  }

  @Post('save')
  @HttpCode(200)
  @RequirePermissions('sys:accessRule:save')
  @ApiDoc('Create (no id) or replace a login access rule', {
    data: AccessRuleDto,
    errors: [ErrorCode.NOT_FOUND],
    description: `Each refused entry is named in data.errors (\`ipRanges.1\`, \`timeWindows.0.end\`, \`roles\`, \`users\`). ${SELF_LOCKOUT}`,
  })
  save(@Body() dto: SaveAccessRuleDto, @CurrentActor() actor: Actor) {
    return this.rules.save(dto, actor);
  }

  @Post('delete')
  @HttpCode(200)
  @RequirePermissions('sys:accessRule:delete')
  @ApiDoc('Delete a login access rule', {
    data: null,
    errors: [ErrorCode.NOT_FOUND],
    description: SELF_LOCKOUT_DELETE,
  })
  async delete(@Body() dto: AccessRuleIdDto, @CurrentActor() actor: Actor) {
    await this.rules.delete(dto.id, actor);
  }

  /** Our addition: the console's "would this login be allowed?", by the login's own evaluation. */
  @Post('check')
  @HttpCode(200)
  @RequirePermissions('sys:accessRule:list')
  @ApiDoc('Would a login of this user from this IP at this time be allowed?', { data: AccessCheckResultDto })
  check(@Body() dto: CheckAccessDto) {
    return this.rules.check(dto);
  }
}
