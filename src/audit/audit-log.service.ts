import { Injectable, Logger, OnModuleInit, StreamableFile } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { EventEmitter2 } from '@nestjs/event-emitter';

import type { Actor } from '../common/auth-context';
import { Clock } from '../common/clock';
import { ExportColumn, ExportRequest, exportTable, filtersOf } from '../common/export-table';
import { Page } from '../common/paging.dto';
import { AuditRecordedEvent } from './audit.events';
import { AuditLogEntity } from './audit-log.entity';
import { AuditLogCursor, AuditLogFilter, AuditLogRepository } from './audit-log.repository';
import { ExportAuditLogDto, ListAuditLogDto } from './dto/list-audit-log.dto';
import { LOG_PII_CIPHER, LogPiiCipher, openedOr } from './log-pii';

/**
 * Every audited action, named `<what it acts on>.<verb>`. A new audited action is one line here
 * and one record() or recordDone() call where the action happens.
 */
export type AuditAction =
  | 'strategy.login.save'
  | 'strategy.user.save'
  | 'user.create'
  // One per /sys/user/import that created users, with their count.
  | 'user.import'
  | 'user.lock'
  | 'user.unlock'
  | 'user.disable'
  | 'user.enable'
  | 'user.resetPass'
  | 'user.update'
  | 'user.delete'
  | 'role.save'
  | 'role.delete'
  | 'online.kickout'
  | 'qrcode.authorize'
  | 'user.recover'
  | 'user.mfaReset'
  // /sys/user/detail showed a user's whole mobile and e-mail to a holder of sys:user:pii.
  | 'user.pii.view'
  | 'apiKey.create'
  | 'apiKey.revoke'
  | 'accessRule.save'
  | 'accessRule.delete'
  // A FORBIDDEN answer to a logged-in caller.
  | 'access.denied'
  // The retention job's deletions (by system) and each CSV export of a log.
  | 'log.retention'
  | 'loginLog.export'
  | 'auditLog.export'
  // Webhooks: a subscription created or changed, and one deleted (src/webhook).
  | 'webhook.save'
  | 'webhook.delete'
  // A check of the logs' seals (POST /sys/auditLog/verify, npm run audit:verify).
  | 'auditLog.verify'
  // A user's own changes of their credentials.
  | 'me.password.change'
  | 'me.mfa.enable'
  | 'me.mfa.disable'
  | 'me.mfa.recoveryCodes'
  // A user's own name, or a mobile or e-mail confirmed by its code (src/profile).
  | 'me.profile.update'
  // A user's own passkeys (src/passkey).
  | 'me.passkey.add'
  | 'me.passkey.rename'
  | 'me.passkey.delete'
  // A forgotten password reset with a one-time code (src/otp).
  | 'password.selfReset';

/**
 * One audited action, recorded by the service (or, where there is none, the controller) that
 * performs it, once it has happened. Never put a password, token, code or hash in `detail`.
 */
export interface AuditEntry {
  action: AuditAction;
  /** The user who acted, or SYSTEM_ACTOR.actorId for the service itself. */
  actorId: string;
  actorName: string | null;
  /** A user id, a role code or a setting group. */
  targetId: string | null;
  /** The target user's user name (a role's name), shown beside the id. */
  targetName?: string | null;
  /** The client IP; absent for actions that come from no request. */
  ip?: string | null;
  detail?: Record<string, unknown> | null;
  /**
   * `detail` with the mobile numbers and e-mails it masks whole: stored sealed and shown instead of
   * `detail` only to a holder of sys:user:pii; never announced to other systems.
   */
  piiDetail?: Record<string, unknown> | null;
}

/**
 * What an action changed, field by field: `old` as it was before, `new` as the action
 * left it, with the same keys; `old` null when the action created the thing. The console shows
 * the two side by side. Put beside other facts in `detail`: `{ username, old: {...}, new: {...} }`.
 */
export interface AuditChange {
  old: Record<string, unknown> | null;
  new: Record<string, unknown>;
}

/** The fields of `before` and `after` whose values differ, as an AuditChange (`before` null: every field of `after`). */
export function changedFields(before: Record<string, unknown> | null, after: Record<string, unknown>): AuditChange {
  if (!before) return { old: null, new: after };
  const keys = Object.keys(after).filter((key) => JSON.stringify(before[key]) !== JSON.stringify(after[key]));
  return {
    old: Object.fromEntries(keys.map((key) => [key, before[key] ?? null])),
    new: Object.fromEntries(keys.map((key) => [key, after[key]])),
  };
}

/** An entry without its action, as recordDone() takes it. */
export type DoneEntry = Omit<AuditEntry, 'action'>;

/** The actor of actions taken by the service itself or by a command run on its server. */
export const SYSTEM_ACTOR = { actorId: 'system', actorName: 'system' } as const;

/** The actor fields of an entry, for an administrator acting through a request (CurrentActor). */
export const actedBy = (actor: Actor) => ({ actorId: actor.id, actorName: actor.name, ip: actor.ip });

export interface AuditLogRow extends Omit<AuditLogEntity, 'detail' | 'piiDetail'> {
  detail: Record<string, unknown> | null;
}

@Injectable()
export class AuditLogService implements OnModuleInit {
  private readonly logger = new Logger('Audit');
  private pii: LogPiiCipher | undefined;

  constructor(
    private readonly rows: AuditLogRepository,
    private readonly clock: Clock,
    private readonly events: EventEmitter2,
    private readonly modules: ModuleRef,
  ) {}

  onModuleInit() {
    this.pii = LOG_PII_CIPHER.collectOne(this.modules);
  }

  /**
   * Writes one row; rejects when it cannot (a caller whose action already happened should log and go
   * on). Once written, the row is announced (AuditRecordedEvent) to whoever tells other systems.
   */
  async record({ piiDetail, ...e }: AuditEntry): Promise<void> {
    const createTime = this.clock.now();
    await this.rows.insert({
      userId: e.actorId.slice(0, 36),
      username: e.actorName?.slice(0, 64) ?? null,
      action: e.action.slice(0, 64),
      target: e.targetId?.slice(0, 128) ?? null,
      targetName: e.targetName?.slice(0, 64) ?? null,
      detail: e.detail ? JSON.stringify(e.detail) : null,
      piiDetail: piiDetail && this.pii ? this.pii.seal(JSON.stringify(piiDetail)) : null,
      ip: (e.ip ?? '').slice(0, 64),
      createTime,
    });
    this.events.emit(AuditRecordedEvent.NAME, new AuditRecordedEvent(e, createTime));
  }

  /**
   * For an action that has already happened: writes its row and never rejects. A failure (also of
   * what `entry` reads to build the row) is logged without details and swallowed: answering an
   * error would make the client repeat an action that is done.
   */
  async recordDone(action: AuditAction, entry: DoneEntry | (() => Promise<DoneEntry>)): Promise<void> {
    try {
      await this.record({ action, ...(typeof entry === 'function' ? await entry() : entry) });
    } catch (err) {
      this.logger.error(
        `could not write the audit record of ${action}: ${(err as Error)?.constructor?.name ?? typeof err}`,
      );
    }
  }

  /** Newest first. `wholePii`: the details with personal data whole (a holder of sys:user:pii), else masked. */
  async list(q: ListAuditLogDto, wholePii = false): Promise<Page<AuditLogRow>> {
    const [rows, total] = await this.rows.page(filterOf(q), q.pageNum, q.pageSize);
    return { total, rows: rows.map((r) => rowOf(this.shown(r, wholePii))) };
  }

  /**
   * The rows of the list's filters as CSV (BOM, a header of the list's row fields,
   * newest first; `detail` as its JSON text), read slice by slice as the client takes them. Audited
   * before the first byte, as LoginLogService.exportCsv.
   */
  async export(q: ExportAuditLogDto, actor: Actor, req: ExportRequest, wholePii = false): Promise<StreamableFile> {
    const filter = filterOf(q);
    await this.record({
      action: 'auditLog.export',
      ...actedBy(actor),
      targetId: null,
      detail: { filters: filtersOf(q) },
    });
    const rows = this.rows;
    const shown = (r: AuditLogEntity) => this.shown(r, wholePii);
    async function* slices(): AsyncGenerator<AuditLogEntity[]> {
      let cursor: AuditLogCursor | null = null;
      for (;;) {
        const slice = await rows.slice(filter, cursor, EXPORT_SLICE);
        if (slice.length) yield slice.map(shown);
        if (slice.length < EXPORT_SLICE) return;
        const last = slice[slice.length - 1];
        cursor = { createTime: last.createTime, id: String(last.id) };
      }
    }
    return exportTable('audit-log', AUDIT_LOG_COLUMNS, slices(), req);
  }

  /**
   * A row with the detail the caller sees: its sealed whole copy to a holder of sys:user:pii (the masked
   * one still when no key opens that any more), the masked one to everyone else.
   */
  private shown(row: AuditLogEntity, wholePii: boolean): AuditLogEntity {
    if (!wholePii || !row.piiDetail || row.detail === null) return row;
    return { ...row, detail: openedOr(this.pii, row.piiDetail, row.detail) };
  }
}

/** Rows per database read of an export. */
const EXPORT_SLICE = 1_000;

/**
 * The list's row fields, in the order of the CSV header, with their labels for people. `detail` is
 * the stored JSON text as it is: parsing it only to write it out again would cost every row.
 */
export const AUDIT_LOG_COLUMNS: ExportColumn<AuditLogEntity>[] = [
  { field: 'id', label: 'exportLabel.id', value: (r) => String(r.id) },
  { field: 'userId', label: 'exportLabel.userId', value: (r) => r.userId },
  { field: 'username', label: 'exportLabel.operator', value: (r) => r.username },
  { field: 'action', label: 'exportLabel.action', value: (r) => r.action },
  { field: 'target', label: 'exportLabel.target', value: (r) => r.target },
  { field: 'targetName', label: 'exportLabel.targetName', value: (r) => r.targetName },
  { field: 'detail', label: 'exportLabel.detail', value: (r) => r.detail },
  { field: 'ip', label: 'exportLabel.ip', value: (r) => r.ip },
  { field: 'createTime', label: 'exportLabel.actionTime', value: (r) => r.createTime, show: 'time' },
];

function rowOf({ piiDetail: _piiDetail, ...row }: AuditLogEntity): AuditLogRow {
  return { ...row, id: String(row.id), detail: row.detail ? JSON.parse(row.detail) : null };
}

function filterOf(q: ExportAuditLogDto): AuditLogFilter {
  return {
    action: q.action,
    username: q.username,
    target: q.target,
    from: q.beginTime ? new Date(q.beginTime) : undefined,
    to: q.endTime ? new Date(q.endTime) : undefined,
  };
}
