import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';

import { AuditRecordedEvent } from '../audit/audit.events';
import { LoginRecordedEvent } from '../login-log/login-log.events';
import { MfaChangedEvent } from '../mfa/mfa.events';
import { SessionEndedEvent } from '../session/session.events';
import { PasswordChangedEvent } from '../user-account/account.events';
import { UserLookup } from '../user-account/user-lookup.service';
import { WebhookPublisher } from './webhook.publisher';
import {
  fromAudit,
  fromLogin,
  fromMfaChange,
  fromPasswordChange,
  fromSessionEnd,
  WebhookEvent,
} from './webhook-events';

/**
 * Turns what happened into webhook events: the audit port's rows (account changes by an
 * administrator or by the service), the login log's rows, and the small events of the own password
 * change, the end of a session and second-factor changes. The answer to whoever caused the event
 * never waits for this: the message is queued after it, and a failure is logged, never answered.
 */
@Injectable()
export class WebhookEventListener implements OnModuleDestroy {
  private readonly logger = new Logger('Webhook');
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly publisher: WebhookPublisher,
    private readonly accounts: UserLookup,
  ) {}

  @OnEvent(AuditRecordedEvent.NAME)
  onAudit(e: AuditRecordedEvent): void {
    this.queue(() => fromAudit(e.entry, e.time));
  }

  @OnEvent(LoginRecordedEvent.NAME)
  onLogin(e: LoginRecordedEvent): void {
    this.queue(async () =>
      fromLogin(e, e.userId ? ((await this.accounts.byIds([e.userId])).get(e.userId)?.username ?? null) : null),
    );
  }

  @OnEvent(PasswordChangedEvent.NAME)
  onPasswordChanged(e: PasswordChangedEvent): void {
    this.queue(() => fromPasswordChange(e));
  }

  @OnEvent(SessionEndedEvent.NAME)
  onSessionEnded(e: SessionEndedEvent): void {
    this.queue(() => fromSessionEnd(e));
  }

  @OnEvent(MfaChangedEvent.NAME)
  onMfaChanged(e: MfaChangedEvent): void {
    this.queue(() => fromMfaChange(e));
  }

  /** Messages still being queued are written before the database closes. */
  async onModuleDestroy(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }

  private queue(build: () => WebhookEvent | null | Promise<WebhookEvent | null>): void {
    const task = (async () => {
      // After the emitter's caller has gone on: its answer never waits for the queue.
      await Promise.resolve();
      const event = await build();
      if (event) await this.publisher.publish(event);
    })()
      .catch((err: unknown) =>
        this.logger.warn(`could not queue a webhook event: ${(err as Error)?.name ?? typeof err}`),
      )
      .finally(() => this.inFlight.delete(task));
    this.inFlight.add(task);
  }
}
