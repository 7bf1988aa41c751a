import { Injectable } from '@nestjs/common';

import { AuditLogService, SYSTEM_ACTOR } from '../audit/audit-log.service';
import { KeyedMutex } from '../store/keyed-mutex';
import { Keys } from '../store/keys';
import { KvStore } from '../store/kv.store';
import { MfaRepository } from './mfa.repository';

/**
 * `npm run admin:recover -- <username> --reset-mfa`: the second factor of a sole administrator who
 * lost both the authenticator and the recovery codes, removed on the server (no administrator is
 * left to call /sys/user/mfa/reset). Without the outbox or the webhooks a command leaves out.
 */
@Injectable()
export class MfaRecoveryService {
  constructor(
    private readonly repo: MfaRepository,
    private readonly store: KvStore,
    private readonly mutex: KeyedMutex,
    private readonly audit: AuditLogService,
  ) {}

  /** Whether there was a second factor to remove; audited as user.mfaReset by the system either way it removes one. */
  async reset(user: { id: string; username: string }): Promise<boolean> {
    const had = (await this.repo.enrolment(user.id)) !== null;
    await this.mutex.run(Keys.loginMutex(user.id), async () => {
      await this.repo.remove(user.id);
      await this.store.del(Keys.mfaSetup(user.id));
    });
    if (had) {
      await this.audit.record({
        action: 'user.mfaReset',
        ...SYSTEM_ACTOR,
        targetId: user.id,
        targetName: user.username,
        detail: { username: user.username, by: 'admin:recover' },
      });
    }
    return had;
  }
}
