import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';

import { ApiDoc } from '../common/api-docs';
import type { Actor } from '../common/auth-context';
import { CurrentActor, RequirePermissions } from '../common/auth-context';
import { ErrorCode } from '../common/error-code';
import { NoInputDto } from '../common/validation.pipe';
import { ApiKeyService } from './api-key.service';
import { ApiKeyIdDto, ApiKeyRowDto, CreateApiKeyDto, CreatedApiKeyDto } from './dto/api-key.dto';

@ApiTags('api keys')
@ApiSecurity('Admin-Token')
@Controller('sys/apiKey')
export class ApiKeyController {
  constructor(private readonly keys: ApiKeyService) {}

  @Post('create')
  @HttpCode(200)
  @RequirePermissions('sys:apiKey:create')
  @ApiDoc('Create an API key for an internal service (shown once)', {
    data: CreatedApiKeyDto,
    description:
      'The key authenticates with `Authorization: Bearer lps_…` or `X-Api-Key: lps_…` and holds only `permissions`. ' +
      'Unknown codes, `*`, `sys:apiKey:*`, a bad CIDR or a name taken answer VALIDATION_FAILED (data.errors names the field); ' +
      'codes the caller does not hold answer FORBIDDEN.',
  })
  create(@Body() dto: CreateApiKeyDto, @CurrentActor() actor: Actor) {
    return this.keys.create(dto, actor);
  }

  @Post('list')
  @HttpCode(200)
  @RequirePermissions('sys:apiKey:list')
  @ApiDoc('List API keys (their first 8 characters, never the key or its hash)', {
    data: ApiKeyRowDto,
    shape: 'array',
  })
  list(@Body() _body: NoInputDto) {
    return this.keys.list();
  }

  @Post('revoke')
  @HttpCode(200)
  @RequirePermissions('sys:apiKey:revoke')
  @ApiDoc('Revoke an API key (refused on every instance within a second)', {
    data: null,
    errors: [ErrorCode.NOT_FOUND],
    description: 'Revoking a revoked key answers OK and changes nothing.',
  })
  async revoke(@Body() dto: ApiKeyIdDto, @CurrentActor() actor: Actor) {
    await this.keys.revoke(dto.id, actor);
  }
}
