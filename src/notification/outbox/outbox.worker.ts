import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { Interval } from '@nestjs/schedule';

import { Clock } from '../../common/clock';
import { NotificationChannels } from '../channels/notification-channels';
import { reasonOf } from '../notification.errors';
import { NotificationOutcome, NotificationOutcomeEvent } from '../notification.events';
import { ChannelNotConfiguredError, NotificationStatus, PermanentDeliveryError } from '../notification.types';
import { NotificationEntity } from './notification.entity';
import { NotificationOutbox } from './notification-outbox';
import { backoffMs, OUTBOX } from './outbox.options';

/**
 * Delivers the outbox: every instance polls (and is kicked right after an
 * insert), claims due rows one by one, hands each to its channel, and records
 * sent / failed / not_configured, or schedules a retry with exponential backoff.
 * Rows left pending by a stopped instance are picked up by the next poll of any
 * instance, including this one after a restart.
 */
@Injectable()
export class OutboxWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Notification');
  /** This instance's claim mark: host, pid and a random part (two apps in one process differ). */
  readonly owner = `${hostname().slice(0, 40)}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;

  constructor(
    private readonly outbox: NotificationOutbox,
    private readonly channels: NotificationChannels,
    private readonly clock: Clock,
    private readonly events: EventEmitter2,
  ) {}

  onApplicationBootstrap() {
    // Rows left pending before a restart go out without waiting for the first poll.
    this.kick();
  }

  async onModuleDestroy() {
    this.stopped = true;
    // Let a delivery in flight record its outcome before the database closes.
    await this.running;
  }

  @Interval('notification-outbox', OUTBOX.pollMs)
  poll(): void {
    void this.drain();
  }

  /** Asks for a pass soon, without waiting for it (called after rows were added). */
  kick(): void {
    if (!this.stopped) setImmediate(() => void this.drain());
  }

  /**
   * Delivers everything due now. One pass at a time per instance; a call during
   * a pass makes that pass look again before it ends. Never throws.
   */
  drain(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          await this.pass();
        } while (this.again && !this.stopped);
      } catch (err) {
        this.logger.warn(`outbox pass failed: ${reasonOf(err)}`);
      } finally {
        this.running = null;
      }
    })();
    return this.running;
  }

  private async pass(): Promise<void> {
    while (!this.stopped) {
      const now = this.clock.now();
      const ids = await this.outbox.dueIds(now, OUTBOX.batchSize);
      const claimed: NotificationEntity[] = [];
      for (const id of ids) {
        const row = await this.outbox.claim(id, this.owner, now, OUTBOX.leaseMs);
        if (row) claimed.push(row);
      }
      // Channels are independent: a slow SMTP server does not hold up site messages.
      await Promise.all(claimed.map((row) => this.deliver(row)));
      if (ids.length < OUTBOX.batchSize) return;
    }
  }

  private async deliver(row: NotificationEntity): Promise<void> {
    try {
      const channel = this.channels.get(row.channel);
      if (!channel) throw new PermanentDeliveryError(`unknown channel ${row.channel}`);
      await channel.deliver({
        id: row.id,
        userId: row.userId,
        channel: row.channel,
        kind: row.kind,
        payload: JSON.parse(row.payload),
        createTime: row.createTime,
      });
      await this.outbox.markSent(row.id, this.owner);
      this.outcome(row, 'sent');
    } catch (err) {
      await this.recordFailure(row, err).catch((e: unknown) =>
        this.logger.warn(`could not record the outcome of notification ${row.id}: ${reasonOf(e)}`),
      );
    }
  }

  private async recordFailure(row: NotificationEntity, err: unknown): Promise<void> {
    const reason = reasonOf(err);
    if (err instanceof ChannelNotConfiguredError) {
      await this.outbox.markFinal(row.id, this.owner, NotificationStatus.NOT_CONFIGURED, reason);
      this.outcome(row, 'not_configured');
      return;
    }
    const maxAttempts = this.channels.get(row.channel)?.maxAttempts ?? OUTBOX.maxAttempts;
    if (err instanceof PermanentDeliveryError || row.attempts >= maxAttempts) {
      this.logger.warn(`${row.channel} notification ${row.id} failed after ${row.attempts} attempt(s): ${reason}`);
      await this.outbox.markFinal(row.id, this.owner, NotificationStatus.FAILED, reason);
      this.outcome(row, 'failed');
      return;
    }
    const next = new Date(this.clock.nowMs() + backoffMs(row.attempts));
    this.logger.warn(
      `${row.channel} notification ${row.id} attempt ${row.attempts} failed, retry at ${next.toISOString()}: ${reason}`,
    );
    await this.outbox.markRetry(row.id, this.owner, next, reason);
    this.outcome(row, 'retry');
  }

  /** The outcome once recorded (an outcome that could not be recorded is not counted). */
  private outcome(row: NotificationEntity, outcome: NotificationOutcome): void {
    this.events.emit(NotificationOutcomeEvent.NAME, new NotificationOutcomeEvent(row.channel, outcome));
  }
}
