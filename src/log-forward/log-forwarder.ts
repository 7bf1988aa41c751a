import { hostname } from 'node:os';

import { Injectable, Logger, OnModuleInit } from '@nestjs/common';

import { AuditLogEntity } from '../audit/audit-log.entity';
import type { SealedTable } from '../audit/sealed-log-columns';
import { LogChainRepository } from '../log-seal/log-chain.repository';
import { AfterSealing, LogSealer } from '../log-seal/log-sealer';
import { SealedRow } from '../log-seal/sealed-log.repository';
import { SealedLogs } from '../log-seal/sealed-logs';
import { LoginLogEntity, LoginStatus } from '../login-log/login-log.entity';
import { NotificationService } from '../notification/notification.service';
import { NotificationKind } from '../notification/notification.types';
import { formatSyslog, SEVERITY } from './syslog-message';
import { SyslogSender } from './syslog-sender';

/** Rows per batch (one outbox row for TCP and TLS). */
const BATCH = 50;
/** The outbox keeps a payload in a TEXT column (64 KiB on MariaDB): batches stay below. */
const BATCH_BYTES = 48 * 1024;
/** A single row longer than this is sent with its detail cut (an audit row of a very large change). */
const ROW_BYTES = 16 * 1024;

/**
 * Every row of both logs, once sealed, also goes to SYSLOG_URL as an RFC 5424 message
 * (docs/operations.md#forwarding-to-syslog), in chain order from a cursor kept with the chain
 * (sys_log_chain.forwarded_seq). It runs right after each sealing pass, in the same hold of the
 * seal mutex, so one instance forwards at a time. TCP and TLS: each batch becomes one outbox row
 * in the same transaction that moves the cursor — queued exactly once, then delivered and retried
 * by the outbox until the collector takes it. UDP: sent straight away, best effort.
 */
@Injectable()
export class LogForwarder implements AfterSealing, OnModuleInit {
  private readonly logger = new Logger('LogSeal');
  private readonly host = hostname();

  constructor(
    private readonly sender: SyslogSender,
    private readonly sealer: LogSealer,
    private readonly logs: SealedLogs,
    private readonly chains: LogChainRepository,
    private readonly notifications: NotificationService,
  ) {}

  onModuleInit() {
    if (this.sender.target) this.sealer.setAfterSealing(this);
  }

  async afterSealing(batches: number): Promise<void> {
    for (const log of this.logs.all) {
      for (let done = 0; done < batches; done += 1) {
        const { forwardedSeq } = await this.chains.state(log.table);
        const rows = await log.sealedAfter(forwardedSeq, BATCH);
        if (!rows.length) break;
        const batch = this.leadingBatch(rows.map((r) => this.message(log.table, r)));
        const to = rows[batch.length - 1].seq!;
        if (!(await this.send(log.table, batch, forwardedSeq, to))) break;
        if (rows.length < BATCH) break;
      }
    }
  }

  /** False when the cursor was moved meanwhile (then this pass stops). */
  private async send(table: SealedTable, messages: string[], from: number, to: number): Promise<boolean> {
    if (this.sender.target!.protocol === 'udp') {
      await this.sender.sendDatagrams(messages);
      return this.chains.advanceForwarded(table, from, to);
    }
    const moved = await this.chains.forwardInTransaction(table, from, to, (tx) =>
      this.notifications.enqueue(tx, 'system', NotificationKind.LOG_FORWARD, ['syslog'], { messages }),
    );
    if (moved) this.notifications.kick();
    else this.logger.warn(`${table}: the forwarding cursor moved meanwhile; the next pass goes on`);
    return moved;
  }

  /** The leading messages that fit one batch (at least one). */
  private leadingBatch(messages: string[]): string[] {
    let bytes = 0;
    const fitting: string[] = [];
    for (const m of messages) {
      bytes += Buffer.byteLength(m, 'utf8') + 8;
      if (fitting.length && bytes > BATCH_BYTES) break;
      fitting.push(m);
    }
    return fitting;
  }

  private message(table: SealedTable, r: SealedRow): string {
    if (table === 'sys_login_log') {
      const row = r.row as unknown as LoginLogEntity;
      const body = {
        id: r.id,
        userId: row.userId,
        account: row.account,
        userName: row.userName,
        loginType: row.loginType,
        status: row.status,
        ip: row.ip,
        browser: row.browser,
        os: row.os,
        loginTime: row.loginTime.toISOString(),
        failureReason: row.failureReason,
        failureCode: row.failureCode,
        sealSeq: r.seq,
        seal: r.seal,
      };
      const severity = row.status === LoginStatus.SUCCESS ? SEVERITY.informational : SEVERITY.warning;
      return this.format('login', severity, row.loginTime, body);
    }
    const row = r.row as unknown as AuditLogEntity;
    const body = {
      id: r.id,
      userId: row.userId,
      username: row.username,
      action: row.action,
      target: row.target,
      targetName: row.targetName,
      detail: parsed(row.detail),
      ip: row.ip,
      createTime: row.createTime.toISOString(),
      sealSeq: r.seq,
      seal: r.seal,
    };
    const severity = row.action === 'access.denied' ? SEVERITY.warning : SEVERITY.notice;
    return this.format('audit', severity, row.createTime, body);
  }

  private format(msgid: 'login' | 'audit', severity: number, time: Date, body: Record<string, unknown>): string {
    const message = formatSyslog({ msgid, severity, time, hostname: this.host, procid: process.pid, body });
    if (Buffer.byteLength(message, 'utf8') <= ROW_BYTES) return message;
    return formatSyslog({
      msgid,
      severity,
      time,
      hostname: this.host,
      procid: process.pid,
      body: { ...body, detail: { truncated: true } },
    });
  }
}

/** The audit detail as an object (stored as JSON text); the text itself when it is not JSON. */
function parsed(detail: string | null): unknown {
  if (detail === null) return null;
  try {
    return JSON.parse(detail);
  } catch {
    return detail;
  }
}
