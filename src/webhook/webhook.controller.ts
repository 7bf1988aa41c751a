import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';

import { ApiDoc } from '../common/api-docs';
import type { Actor } from '../common/auth-context';
import { CurrentActor, RequirePermissions } from '../common/auth-context';
import { ErrorCode } from '../common/error-code';
import { NoInputDto } from '../common/validation.pipe';
import {
  ListWebhookDeliveriesDto,
  SavedWebhookDto,
  SaveWebhookDto,
  WebhookDeliveryDto,
  WebhookDto,
  WebhookIdDto,
  WebhookTestDto,
} from './dto/webhook.dto';
import { WebhookService } from './webhook.service';

/** Webhooks: other systems told of logins and account changes (docs/api.md "Webhooks"). */
@ApiTags('webhooks')
@ApiSecurity('Admin-Token')
@Controller('sys/webhook')
export class WebhookController {
  constructor(private readonly webhooks: WebhookService) {}

  @Post('save')
  @HttpCode(200)
  @RequirePermissions('sys:webhook:save')
  @ApiDoc('Create a webhook (its signing secret is answered this once) or update one by id', {
    data: SavedWebhookDto,
    errors: [ErrorCode.NOT_FOUND],
    description:
      'A URL that is not http or https, or that carries a user name or password, and an unknown event name answer ' +
      'VALIDATION_FAILED (data.errors names `url` or `events`). An update keeps the secret.',
  })
  save(@Body() dto: SaveWebhookDto, @CurrentActor() actor: Actor) {
    return this.webhooks.save(dto, actor);
  }

  @Post('list')
  @HttpCode(200)
  @RequirePermissions('sys:webhook:list')
  @ApiDoc('List the webhooks (never their secrets)', { data: WebhookDto, shape: 'array' })
  list(@Body() _body: NoInputDto) {
    return this.webhooks.list();
  }

  @Post('delete')
  @HttpCode(200)
  @RequirePermissions('sys:webhook:delete')
  @ApiDoc('Delete a webhook; its messages not yet delivered are not sent', {
    data: null,
    errors: [ErrorCode.NOT_FOUND],
  })
  async delete(@Body() dto: WebhookIdDto, @CurrentActor() actor: Actor) {
    await this.webhooks.delete(dto.id, actor);
  }

  @Post('deliveries')
  @HttpCode(200)
  @RequirePermissions('sys:webhook:list')
  @ApiDoc("A webhook's delivery log: one row per try, newest first", {
    data: WebhookDeliveryDto,
    shape: 'page',
    errors: [ErrorCode.NOT_FOUND],
  })
  deliveries(@Body() dto: ListWebhookDeliveriesDto) {
    return this.webhooks.deliveries(dto);
  }

  @Post('test')
  @HttpCode(200)
  @RequirePermissions('sys:webhook:save')
  @ApiDoc('Send a `webhook.test` event to one webhook, as events are sent (enabled or not)', {
    data: WebhookTestDto,
    errors: [ErrorCode.NOT_FOUND],
    description: 'The answer does not wait for the delivery: its tries appear in /sys/webhook/deliveries.',
  })
  test(@Body() dto: WebhookIdDto, @CurrentActor() actor: Actor) {
    return this.webhooks.test(dto.id, actor);
  }
}
