import { Injectable } from '@nestjs/common';

import { AppConfig } from '../../config/app-config';
import { PermanentDeliveryError } from '../notification.types';

export interface SmsMessage {
  /** The outbox row's id: the same message retried carries the same id, so a provider can drop repeats. */
  id: string;
  /** Mobile number as stored on the user. */
  to: string;
  text: string;
  kind: string;
  /**
   * For providers that send only registered templates (aliyun, tencent): which template (its id
   * comes from the provider's variables) and its parameters. The webhook sends `text` and leaves it out.
   */
  template?: { name: SmsTemplateName; params: Record<string, string> };
}

/** The templates a template-only provider needs: one per code purpose, one for notices. */
export type SmsTemplateName = 'login' | 'reset' | 'mfa' | 'notice';

/** Port for an SMS gateway; the shipped one is a JSON webhook (SMS_WEBHOOK_URL). */
export abstract class SmsProvider {
  abstract readonly configured: boolean;
  /** What is missing while not configured (recorded on the not_configured row). */
  abstract readonly missing: string;
  abstract send(message: SmsMessage): Promise<void>;
}

const TIMEOUT_MS = 10_000;

/**
 * POSTs `{ id, to, text, kind }` as JSON to SMS_WEBHOOK_URL (also sending the id as
 * Idempotency-Key). 2xx = accepted; 408, 429 and 5xx are retried; any other 4xx
 * means the request itself is wrong and is not retried.
 */
@Injectable()
export class WebhookSmsProvider extends SmsProvider {
  constructor(private readonly config: AppConfig) {
    super();
  }

  get configured(): boolean {
    return !!this.config.SMS_WEBHOOK_URL;
  }

  readonly missing = 'SMS_WEBHOOK_URL is not set';

  async send(message: SmsMessage): Promise<void> {
    const res = await fetch(this.config.SMS_WEBHOOK_URL!, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': message.id },
      body: JSON.stringify({ id: message.id, to: message.to, text: message.text, kind: message.kind }),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    // Drain the body so the connection can be reused.
    await res.arrayBuffer().catch(() => undefined);
    if (res.ok) return;
    const problem = `SMS webhook answered HTTP ${res.status}`;
    if (res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429) {
      throw new PermanentDeliveryError(problem);
    }
    throw new Error(problem);
  }
}
