import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { Clock } from '../common/clock';
import { Page } from '../common/paging.dto';
import { AuditLogEntity } from './audit-log.entity';
import { ListAuditLogDto } from './dto/list-audit-log.dto';

export interface AuditRecord {
  userId: string;
  username: string | null;
  action: string;
  target: string | null;
  detail: Record<string, unknown> | null;
  ip: string;
}

export interface AuditLogRow extends Omit<AuditLogEntity, 'detail'> {
  detail: Record<string, unknown> | null;
}

@Injectable()
export class AuditLogService {
  constructor(
    @InjectRepository(AuditLogEntity) private readonly rows: Repository<AuditLogEntity>,
    private readonly clock: Clock,
  ) {}

  async record(r: AuditRecord): Promise<void> {
    await this.rows.insert({
      userId: r.userId,
      username: r.username?.slice(0, 64) ?? null,
      action: r.action,
      target: r.target?.slice(0, 128) ?? null,
      detail: r.detail ? JSON.stringify(r.detail) : null,
      ip: r.ip.slice(0, 64),
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
