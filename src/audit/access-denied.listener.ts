import { Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';

import { AccessDeniedEvent } from '../common/access-denied.event';
import { Clock } from '../common/clock';
import { Keys } from '../store/keys';
import { KvStore } from '../store/kv.store';
import { actedBy, AuditLogService } from './audit-log.service';

const MINUTE_MS = 60_000;

/**
 * Every FORBIDDEN answer to a logged-in caller is audited as `access.denied`, with
 * the path and the codes missing — at most one row per session, path and minute (claimed in the
 * shared store, so on every instance together): a client repeating a refused request cannot fill
 * the audit log, and an assessor still sees who tried what.
 */
@Injectable()
export class AccessDeniedListener {
  constructor(
    private readonly audit: AuditLogService,
    private readonly store: KvStore,
    private readonly clock: Clock,
  ) {}

  @OnEvent(AccessDeniedEvent.NAME)
  async onDenied(event: AccessDeniedEvent): Promise<void> {
    try {
      const minute = Math.floor(this.clock.nowMs() / MINUTE_MS);
      const first = await this.store.setIfAbsent(
        Keys.accessDeniedAudited(event.tokenHash, event.path, minute),
        '1',
        2 * MINUTE_MS,
      );
      if (!first) return;
    } catch {
      // The store out of reach: the row is written all the same (rather one too many than none).
    }
    await this.audit.recordDone('access.denied', {
      ...actedBy(event.actor),
      targetId: event.target?.id ?? null,
      targetName: event.target?.name ?? null,
      detail: {
        path: event.path,
        missing: [...event.missing],
        ...(event.target ? { username: event.target.name } : {}),
      },
    });
  }
}
