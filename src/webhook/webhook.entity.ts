import { Column, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

import { DATETIME } from '../common/datetime';

/**
 * `sys_webhook`: another system that wants to hear of events. The shared secret that signs every
 * delivery is stored encrypted (`v1.` + AES-256-GCM under the MFA key, as the TOTP secrets are) and
 * shown only once, when the webhook is created.
 */
@Entity('sys_webhook')
export class WebhookEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ type: 'varchar', length: 2048 })
  url: string;

  /** JSON array of the event types it subscribed to (webhook-events.ts). */
  @Column({ type: 'varchar', length: 512 })
  events: string;

  @Column({ type: 'boolean' })
  enabled: boolean;

  /** Encrypted; never answered, logged or put in a delivery. */
  @Column({ type: 'varchar', length: 255 })
  secret: string;

  @Column({ ...DATETIME, name: 'create_time' })
  createTime: Date;

  @Column({ ...DATETIME, name: 'update_time' })
  updateTime: Date;
}

/**
 * `sys_webhook_delivery`: one row per try of one message to one webhook — what the receiver
 * answered (an HTTP status) or why there was no answer, and how long it took. Never the secret,
 * the signature or the body.
 */
@Entity('sys_webhook_delivery')
// The deliveries of one webhook, newest first; and their pruning by age.
@Index('idx_webhook_delivery_hook_time', ['webhookId', 'attemptTime'])
export class WebhookDeliveryEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'webhook_id', type: 'varchar', length: 36 })
  webhookId: string;

  /** The `webhook-id` header: the same on every try of one message. */
  @Column({ name: 'message_id', type: 'varchar', length: 36 })
  messageId: string;

  @Column({ name: 'event_type', type: 'varchar', length: 32 })
  eventType: string;

  /** 1 for the first try of the message. */
  @Column({ type: 'int' })
  attempt: number;

  @Column({ ...DATETIME, name: 'attempt_time' })
  attemptTime: Date;

  /** The receiver's HTTP status; null when none came (timeout, refused connection). */
  @Column({ name: 'http_status', type: 'int', nullable: true })
  httpStatus: number | null;

  /** Why the try failed when no status says it (or a status that is not 2xx: `HTTP 503`). */
  @Column({ type: 'varchar', length: 255, nullable: true })
  error: string | null;

  @Column({ name: 'duration_ms', type: 'int' })
  durationMs: number;

  /** The receiver answered 2xx. */
  @Column({ type: 'boolean' })
  success: boolean;
}
