import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';

import { AuditRecordedEvent } from '../audit/audit.events';
import { LoginRecordedEvent } from '../login-log/login-log.events';
import { MfaChangedEvent } from '../mfa/mfa.events';
import { SessionEndedEvent } from '../session/session.events';
import { PasswordChangedEvent } from '../user-account/account.events';
import { UserLookup } from '../user-account/user-lookup.service';
import { WebhookPublisher } from './webhook.publisher';
import { fromAudit, fromLogin, fromMfaChange, fromPasswordChange, fromSessionEnd } from './webhook-events';

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
    const event = fromAudit(e.entry, e.time);
    if (event) this.queue(() => this.publisher.publish(event));
  }

  /** The log row names the user by id (and by what was typed): the user name is read when someone listens. */
  @OnEvent(LoginRecordedEvent.NAME)
  onLogin(e: LoginRecordedEvent): void {
    const { userId } = e;
    this.queue(() =>
      this.publisher.publish(fromLogin(e, null), async (data) => ({
        ...data,
        username: userId ? ((await this.accounts.byIds([userId])).get(userId)?.username ?? null) : null,
      })),
    );
  }

  @OnEvent(PasswordChangedEvent.NAME)
  onPasswordChanged(e: PasswordChangedEvent): void {
    this.queue(() => this.publisher.publish(fromPasswordChange(e)));
  }

  @OnEvent(SessionEndedEvent.NAME)
  onSessionEnded(e: SessionEndedEvent): void {
    this.queue(() => this.publisher.publish(fromSessionEnd(e)));
  }

  @OnEvent(MfaChangedEvent.NAME)
  onMfaChanged(e: MfaChangedEvent): void {
    this.queue(() => this.publisher.publish(fromMfaChange(e)));
  }

  /** Messages still being queued are written before the database closes. */
  async onModuleDestroy(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }

  private queue(publish: () => Promise<void>): void {
    const task = (async () => {
      // After the emitter's caller has gone on: its answer never waits for the queue.
      await Promise.resolve();
      await publish();
    })()
      .catch((err: unknown) =>
        this.logger.warn(`could not queue a webhook event: ${(err as Error)?.name ?? typeof err}`),
      )
      .finally(() => this.inFlight.delete(task));
    this.inFlight.add(task);
  }
}
