import { Injectable, OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository, SelectQueryBuilder } from 'typeorm';

import { LIKE_ESCAPE_CLAUSE, likePrefix } from '../common/like-prefix';
import { AuditLogEntity, auditLogSealFields } from './audit-log.entity';
import { LOG_ROW_SEAL, LogRowSeal, storedForm } from './sealed-log-columns';

/**
 * What the audit list can be narrowed by; every given field must match. `action` exactly; the text
 * filters by prefix, as the login log's: `username` the acting administrator's user
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

/** Where an export slice resumes: the last row of the previous one. */
export interface AuditLogCursor {
  createTime: Date;
  id: string;
}

/**
 * `sys_audit_log`: the only place that queries it, but for its seal columns (read and written by
 * src/log-seal/sealed-log.repository.ts).
 */
@Injectable()
export class AuditLogRepository implements OnModuleInit {
  private seal: LogRowSeal | undefined;

  constructor(
    @InjectRepository(AuditLogEntity) private readonly rows: Repository<AuditLogEntity>,
    private readonly modules: ModuleRef,
  ) {}

  onModuleInit() {
    this.seal = LOG_ROW_SEAL.collectOne(this.modules);
  }

  /** With its MAC (docs/security.md#sealed-logs), taken of the row as the database will give it back. */
  async insert(row: Omit<AuditLogEntity, 'id'>): Promise<void> {
    const stored = storedForm(row);
    await this.rows.insert({
      ...stored,
      rowMac: this.seal?.rowMac('sys_audit_log', auditLogSealFields(stored)) ?? null,
    });
  }

  /** One page of the rows matching `filter`, newest first, and how many match in all. */
  page(filter: AuditLogFilter, pageNum: number, pageSize: number): Promise<[AuditLogEntity[], number]> {
    return this.matching(filter)
      .orderBy('a.create_time', 'DESC')
      .addOrderBy('a.id', 'DESC')
      .skip((pageNum - 1) * pageSize)
      .take(pageSize)
      .getManyAndCount();
  }

  /** Export: as LoginLogRepository.slice, keyset paging on (create_time, id), newest first. */
  async slice(filter: AuditLogFilter, cursor: AuditLogCursor | null, size: number): Promise<AuditLogEntity[]> {
    const qb = this.matching(filter);
    if (cursor) {
      qb.andWhere('a.create_time <= :cursorTime AND (a.create_time < :cursorTime OR a.id < :cursorId)', {
        cursorTime: cursor.createTime,
        cursorId: cursor.id,
      });
    }
    return qb.orderBy('a.create_time', 'DESC').addOrderBy('a.id', 'DESC').limit(size).getMany();
  }

  /** The list's filters, shared by the page and the export. */
  private matching(filter: AuditLogFilter): SelectQueryBuilder<AuditLogEntity> {
    const qb = this.rows.createQueryBuilder('a');
    if (filter.action) qb.andWhere('a.action = :action', { action: filter.action });
    // Index-friendly prefixes (like-prefix.ts); the OR of two indexed prefixes is a union of two
    // index ranges on both databases (MariaDB index_merge, SQLite's multi-index OR).
    if (filter.username)
      qb.andWhere(`a.username LIKE :username ${LIKE_ESCAPE_CLAUSE}`, { username: likePrefix(filter.username) });
    if (filter.target) {
      qb.andWhere(`(a.target LIKE :target ${LIKE_ESCAPE_CLAUSE} OR a.target_name LIKE :target ${LIKE_ESCAPE_CLAUSE})`, {
        target: likePrefix(filter.target),
      });
    }
    if (filter.from) qb.andWhere('a.create_time >= :begin', { begin: filter.from });
    if (filter.to) qb.andWhere('a.create_time <= :end', { end: filter.to });
    return qb;
  }
}
