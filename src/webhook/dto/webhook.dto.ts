import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsString,
  MaxLength,
  MinLength,
  ValidateBy,
} from 'class-validator';

import { FormArray, FormBool } from '../../common/form-body';
import { Optional } from '../../common/optional';
import { PagingDto } from '../../common/paging.dto';
import { textRule } from '../../common/validation.pipe';
import { WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_EVENT, type WebhookEventType } from '../webhook-events';

/** What a webhook URL must be, and the text that says why one is not: null when it is fine. */
export function urlProblem(value: string): 'validation.webhookUrl' | 'validation.webhookUrlCredentials' | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'validation.webhookUrl';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'validation.webhookUrl';
  if (!url.hostname) return 'validation.webhookUrl';
  // A password in the URL would be stored, listed and logged as the URL is: never.
  if (url.username || url.password) return 'validation.webhookUrlCredentials';
  return null;
}

/** One of urlProblem's rules, so that each answers its own text (zh and en). */
const UrlRule = (name: string, key: NonNullable<ReturnType<typeof urlProblem>>) =>
  ValidateBy(
    { name, validator: { validate: (value) => typeof value !== 'string' || urlProblem(value) !== key } },
    { message: textRule(key) },
  );

/** /sys/webhook/save: `id` absent creates a webhook, present replaces that one's URL, events and switch. */
export class SaveWebhookDto {
  @ApiPropertyOptional({ description: 'absent: create; present: update that webhook (its secret stays)' })
  @Optional()
  @IsString()
  @MinLength(1)
  @MaxLength(36)
  id?: string;

  @ApiProperty({
    example: 'https://siem.example.internal/hooks/lps',
    description: 'any http or https URL (internal systems are the point); no user name or password in it',
  })
  @IsString()
  @MaxLength(2048)
  @UrlRule('webhookUrl', 'validation.webhookUrl')
  @UrlRule('webhookUrlCredentials', 'validation.webhookUrlCredentials')
  url: string;

  @ApiProperty({ enum: WEBHOOK_EVENT_TYPES, isArray: true, example: ['login.failed', 'account.locked'] })
  @FormArray()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(WEBHOOK_EVENT_TYPES.length)
  @IsIn(WEBHOOK_EVENT_TYPES, { each: true })
  events: WebhookEventType[];

  @ApiProperty({ description: 'false: no event is queued for it (a test event still is)' })
  @FormBool()
  @IsBoolean()
  enabled: boolean;
}

export class WebhookIdDto {
  @ApiProperty()
  @IsString()
  @MinLength(1)
  @MaxLength(36)
  id: string;
}

export class ListWebhookDeliveriesDto extends PagingDto {
  @ApiProperty({ description: 'the webhook' })
  @IsString()
  @MinLength(1)
  @MaxLength(36)
  id: string;
}

/** OpenAPI only: what /sys/webhook/save answers. */
export class SavedWebhookDto {
  @ApiProperty() id: string;
  @ApiPropertyOptional({
    description: 'only when the webhook was created: `whsec_` + base64 of 32 random bytes, shown this once',
  })
  secret?: string;
}

/** OpenAPI only: a webhook of /sys/webhook/list (never its secret). */
export class WebhookDto {
  @ApiProperty() id: string;
  @ApiProperty() url: string;
  @ApiProperty({ enum: WEBHOOK_EVENT_TYPES, isArray: true }) events: WebhookEventType[];
  @ApiProperty() enabled: boolean;
  @ApiProperty({ format: 'date-time' }) createTime: string;
  @ApiProperty({ format: 'date-time' }) updateTime: string;
}

/** OpenAPI only: one try of /sys/webhook/deliveries. */
export class WebhookDeliveryDto {
  @ApiProperty() id: string;
  @ApiProperty({ description: 'the `webhook-id` header: the same on every try of one message' }) messageId: string;
  @ApiProperty({ enum: [...WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_EVENT] }) eventType: string;
  @ApiProperty({ description: '1 for the first try' }) attempt: number;
  @ApiProperty({ format: 'date-time' }) time: string;
  @ApiProperty({ type: Number, nullable: true, description: "the receiver's status; null when none came" })
  httpStatus: number | null;
  @ApiProperty({ type: String, nullable: true, description: 'why the try failed (a timeout, no connection, HTTP 503)' })
  error: string | null;
  @ApiProperty() durationMs: number;
  @ApiProperty({ description: 'the receiver answered 2xx' }) success: boolean;
}

/** OpenAPI only: what /sys/webhook/test answers. */
export class WebhookTestDto {
  @ApiProperty({ description: 'the `webhook-id` of the queued test message (find it in the deliveries)' })
  messageId: string;
}
