import { Module } from '@nestjs/common';

import { LogSealModule } from '../log-seal/log-seal.module';
import { NotificationModule } from '../notification/notification.module';
import { NOTIFICATION_CHANNELS } from '../notification/notification.types';
import { LogForwarder } from './log-forwarder';
import { SyslogChannel } from './syslog.channel';
import { SyslogSender } from './syslog-sender';

/**
 * SYSLOG_URL: every login-log and audit-log row, once sealed, also sent as an RFC 5424 message
 * (docs/operations.md#forwarding-to-syslog); over TCP and TLS through the outbox (channel `syslog`).
 */
@Module({
  imports: [LogSealModule, NotificationModule],
  providers: [SyslogSender, SyslogChannel, LogForwarder, NOTIFICATION_CHANNELS.provide(SyslogChannel)],
})
export class LogForwardModule {}
