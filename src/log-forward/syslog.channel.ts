import { Injectable } from '@nestjs/common';

import {
  ChannelNotConfiguredError,
  Delivery,
  LogForwardPayload,
  NotificationChannel,
  RetryPolicy,
} from '../notification/notification.types';
import { DEFAULT_RETRY } from '../notification/outbox/outbox.options';
import { SyslogSender } from './syslog-sender';

/**
 * The outbox channel of SYSLOG_URL over TCP or TLS: a batch of log rows, retried until the
 * collector takes it (the outbox's backoff, up to an hour between tries), never given up.
 */
@Injectable()
export class SyslogChannel extends NotificationChannel {
  readonly name = 'syslog';
  override readonly retry: RetryPolicy = { ...DEFAULT_RETRY, maxAttempts: Number.POSITIVE_INFINITY };

  constructor(private readonly sender: SyslogSender) {
    super();
  }

  async deliver(delivery: Delivery): Promise<void> {
    const target = this.sender.target;
    if (!target || target.protocol === 'udp') throw new ChannelNotConfiguredError('SYSLOG_URL is not tcp:// or tls://');
    await this.sender.sendStream((delivery.payload as LogForwardPayload).messages);
  }
}
