import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { Clock } from '../common/clock';
import { Page } from '../common/paging.dto';
import { AuditLogEntity } from './audit-log.entity';
import { ListAuditLogDto } from './dto/list-audit-log.dto';

/**
 * One audited action: the port services call for actions that are not an @Audited handler of an
 * administrator (a QR-code authorisation, the recovery command). Never put a password, token,
 * code or hash in `detail`.
 */
export interface AuditEntry {
  /** e.g. 'user.lock', 'qrcode.authorize', 'user.recover' */
  action: string;
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
}

/** The actor of actions taken by the service itself or by a command run on its server. */
export const SYSTEM_ACTOR = { actorId: 'system', actorName: 'system' } as const;

export interface AuditLogRow extends Omit<AuditLogEntity, 'detail'> {
  detail: Record<string, unknown> | null;
}

@Injectable()
export class AuditLogService {
  constructor(
    @InjectRepository(AuditLogEntity) private readonly rows: Repository<AuditLogEntity>,
    private readonly clock: Clock,
  ) {}

  /** Writes one row; rejects when it cannot (a caller whose action already happened should log and go on). */
  async record(e: AuditEntry): Promise<void> {
    await this.rows.insert({
      userId: e.actorId.slice(0, 36),
      username: e.actorName?.slice(0, 64) ?? null,
      action: e.action.slice(0, 64),
      target: e.targetId?.slice(0, 128) ?? null,
      targetName: e.targetName?.slice(0, 64) ?? null,
      detail: e.detail ? JSON.stringify(e.detail) : null,
      ip: (e.ip ?? '').slice(0, 64),
      createTime: this.clock.now(),
    });
  }

  /** Newest first. */
  async list(q: ListAuditLogDto): Promise<Page<AuditLogRow>> {
    const qb = this.rows.createQueryBuilder('a');
    if (q.action) qb.andWhere('a.action = :action', { action: q.action });
    if (q.username) qb.andWhere('a.username = :username', { username: q.username });
    if (q.target) qb.andWhere('a.target = :target', { target: q.target });
    const [rows, total] = await qb.orderBy('a.create_time', 'DESC').addOrderBy('a.id', 'DESC')
      .skip((q.pageNum - 1) * q.pageSize).take(q.pageSize).getManyAndCount();
    return {
      total,
      rows: rows.map((row) => ({ ...row, id: String(row.id), detail: row.detail ? JSON.parse(row.detail) : null })),
    };
  }
}
