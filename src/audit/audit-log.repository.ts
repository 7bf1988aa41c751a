import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { AuditLogEntity } from './audit-log.entity';

/** What the audit list can be narrowed by; every given field must match exactly. */
export interface AuditLogFilter {
  action?: string;
  username?: string;
  target?: string;
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
    if (filter.username) qb.andWhere('a.username = :username', { username: filter.username });
    if (filter.target) qb.andWhere('a.target = :target', { target: filter.target });
    return qb.orderBy('a.create_time', 'DESC').addOrderBy('a.id', 'DESC')
      .skip((pageNum - 1) * pageSize).take(pageSize).getManyAndCount();
  }
}
