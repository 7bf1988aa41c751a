import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { LIKE_ESCAPE_CLAUSE, likePrefix } from '../common/like-prefix';
import { AuditLogEntity } from './audit-log.entity';

/**
 * What the audit list can be narrowed by; every given field must match. `action` exactly; the text
 * filters by prefix, as the login log's (contract §12): `username` the acting administrator's user
 * name, `target` the target's id (a user id, role code or setting group) or its name.
 */
export interface AuditLogFilter {
  action?: string;
  username?: string;
  target?: string;
  /** Inclusive bounds of the time. */
  from?: Date;
  to?: Date;
}

/** `sys_audit_log`: the only place that queries it. */
@Injectable()
export class AuditLogRepository {
  constructor(@InjectRepository(AuditLogEntity) private readonly rows: Repository<AuditLogEntity>) {}

  async insert(row: Omit<AuditLogEntity, 'id'>): Promise<void> {
    await this.rows.insert(row);
  }

  /** One page of the rows matching `filter`, newest first, and how many match in all. */
  page(filter: AuditLogFilter, pageNum: number, pageSize: number): Promise<[AuditLogEntity[], number]> {
    const qb = this.rows.createQueryBuilder('a');
    if (filter.action) qb.andWhere('a.action = :action', { action: filter.action });
    // Index-friendly prefixes (like-prefix.ts); the OR of two indexed prefixes is a union of two
    // index ranges on both databases (MariaDB index_merge, SQLite's multi-index OR).
    if (filter.username) qb.andWhere(`a.username LIKE :username ${LIKE_ESCAPE_CLAUSE}`, { username: likePrefix(filter.username) });
    if (filter.target) {
      qb.andWhere(`(a.target LIKE :target ${LIKE_ESCAPE_CLAUSE} OR a.target_name LIKE :target ${LIKE_ESCAPE_CLAUSE})`, { target: likePrefix(filter.target) });
    }
    if (filter.from) qb.andWhere('a.create_time >= :begin', { begin: filter.from });
    if (filter.to) qb.andWhere('a.create_time <= :end', { end: filter.to });
    return qb.orderBy('a.create_time', 'DESC').addOrderBy('a.id', 'DESC')
      .skip((pageNum - 1) * pageSize).take(pageSize).getManyAndCount();
  }
}
