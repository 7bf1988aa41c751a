import { Injectable, Logger } from '@nestjs/common';
import { Webhook } from 'standardwebhooks';

import { Clock } from '../common/clock';
import { Delivery, NotificationChannel, PermanentDeliveryError, RetryPolicy } from '../notification/notification.types';
import { WebhookRepository } from './webhook.repository';
import { WebhookMessage, WebhookMessageType } from './webhook-events';
import { WebhookSecrets } from './webhook-secret';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * After the first try: 5 s, 5 min, 30 min, 2 h, 5 h, 8 h, 8 h — the first retry within a minute and
 * the last about a day after the event (docs/operations.md "Webhooks").
 */
const RETRY_DELAYS = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 8 * HOUR, 8 * HOUR];
export const WEBHOOK_RETRY: RetryPolicy = {
  maxAttempts: RETRY_DELAYS.length + 1,
  delayMs: (failed) => RETRY_DELAYS[Math.min(failed, RETRY_DELAYS.length) - 1],
};

/** How long the delivery log keeps a try. */
const LOG_DAYS = 30;

/**
 * `webhook`: POSTs one message to one webhook, signed with the `standardwebhooks` package
 * (`webhook-id` = the outbox row's id, the same on every try; a fresh `webhook-timestamp` and
 * `webhook-signature` each time). A 2xx answer delivers it; any other status (a redirect too:
 * none is followed), a timeout or no connection is retried by the outbox on WEBHOOK_RETRY. Every
 * try is written to the delivery log. A webhook deleted meanwhile ends its messages.
 */
@Injectable()
export class WebhookChannel extends NotificationChannel<WebhookMessage, WebhookMessageType> {
  readonly name = 'webhook';
  override readonly retry = WEBHOOK_RETRY;
  /** How long a receiver may take to answer (docs/operations.md). */
  timeoutMs = 10 * SECOND;
  private readonly logger = new Logger('Webhook');

  constructor(
    private readonly webhooks: WebhookRepository,
    private readonly secrets: WebhookSecrets,
    private readonly clock: Clock,
  ) {
    super();
  }

  async deliver(delivery: Delivery<WebhookMessage, WebhookMessageType>): Promise<void> {
    const hook = await this.webhooks.byId(delivery.userId);
    if (!hook) throw new PermanentDeliveryError('the webhook was deleted');
    let signer: Webhook;
    try {
      signer = new Webhook(this.secrets.open(hook.secret));
    } catch {
      // Named without the value: retrying cannot make an altered secret (or another key) readable.
      throw new PermanentDeliveryError('the signing secret does not decrypt (altered, or MFA_ENCRYPTION_KEY changed)');
    }
    const body = JSON.stringify(delivery.payload);
    const at = this.clock.now();
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'lps-webhook',
      'webhook-id': delivery.id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1_000)),
      'webhook-signature': signer.sign(delivery.id, at, body),
    };
    const started = performance.now();
    let status: number | null = null;
    let problem: string | null = null;
    try {
      const res = await fetch(hook.url, {
        method: 'POST',
        headers,
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      status = res.status;
      // The answer's body is not read: nothing in it matters, and the connection is freed at once.
      await res.body?.cancel().catch(() => undefined);
    } catch (err) {
      problem = whyNoAnswer(err, this.timeoutMs);
    }
    const success = status !== null && status >= 200 && status < 300;
    await this.record(delivery, {
      attemptTime: at,
      httpStatus: status,
      error: success ? null : (problem ?? `HTTP ${status}`),
      durationMs: Math.round(performance.now() - started),
      success,
    });
    if (!success) throw new Error(problem ?? `the receiver answered HTTP ${status}`);
  }

  /** One row of the delivery log; a row that cannot be written is logged and the delivery's outcome stands. */
  private async record(
    delivery: Delivery<WebhookMessage, WebhookMessageType>,
    outcome: {
      attemptTime: Date;
      httpStatus: number | null;
      error: string | null;
      durationMs: number;
      success: boolean;
    },
  ): Promise<void> {
    try {
      await this.webhooks.recordTry({
        webhookId: delivery.userId,
        messageId: delivery.id,
        eventType: delivery.kind,
        attempt: delivery.attempt,
        ...outcome,
        error: outcome.error?.slice(0, 255) ?? null,
      });
      await this.webhooks.pruneTries(delivery.userId, new Date(outcome.attemptTime.getTime() - LOG_DAYS * 24 * HOUR));
    } catch (err) {
      this.logger.warn(
        `could not write the delivery log of message ${delivery.id}: ${(err as Error)?.name ?? typeof err}`,
      );
    }
  }
}

/**
 * Why no status came back, in words that name neither the URL nor the body: a timeout, or the
 * network error's code (ECONNREFUSED, ENOTFOUND, …).
 */
function whyNoAnswer(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; cause?: { code?: string; name?: string } };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return `no answer within ${timeoutMs / 1_000} s`;
  const code = e?.cause?.code ?? e?.cause?.name;
  return code ? `no connection: ${code}` : `no connection: ${e?.name ?? 'error'}`;
}
