import { Injectable } from '@nestjs/common';

import { AuditLogService, SYSTEM_ACTOR } from '../../audit/audit-log.service';
import { Clock } from '../../common/clock';
import { AppConfig } from '../../config/app-config';
import { SessionService } from '../../session/session.service';
import { KeyedMutex } from '../../store/keyed-mutex';
import { Keys } from '../../store/keys';
import { StrategyService } from '../../strategy/strategy.service';
import { PasswordHasher } from '../password-hasher';
import { generatePassword } from '../password-policy';
import { previousToKeep } from '../password-screen';
import { UserRepository } from '../user.repository';

export interface Recovered {
  id: string;
  username: string;
  /** Plain text, to be shown once and never stored or logged. */
  password: string;
  wasLocked: boolean;
  wasDisabled: boolean;
  /** False when sessions live in another process's memory (neither REDIS_URL nor REDIS_SENTINELS set) and could not be reached. */
  sessionsEnded: boolean;
}

/**
 * The way back when no administrator can log in (`npm run admin:recover -- <username>`,
 * run on the server). Unlocks, enables and gives the account a generated one-time password that
 * meets the account strategy; it is an initial password (password_update_time empty), so the
 * first-login rules apply, and the failure count starts again as after a reset.
 */
@Injectable()
export class AccountRecoveryService {
  constructor(
    private readonly users: UserRepository,
    private readonly strategy: StrategyService,
    private readonly hasher: PasswordHasher,
    private readonly sessions: SessionService,
    private readonly mutex: KeyedMutex,
    private readonly audit: AuditLogService,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  /** null when no user has that user name. */
  async recover(username: string): Promise<Recovered | null> {
    // As a login finds it: through sys_user_identifier, user names ignoring case.
    const user = await this.users.byUsername(username);
    if (!user) return null;
    const rules = await this.strategy.userStrategy();
    const password = generatePassword(rules);
    const hash = await this.hasher.hash(password);
    // Under the account's login mutex, like an administrator's reset: a wrong password being
    // counted right now must not lock the account again with the failures from before.
    await this.mutex.run(Keys.loginMutex(user.id), async () => {
      await this.users.recover(user.id, hash, this.clock.now(), previousToKeep(rules.passwordHistoryCount));
      await this.sessions.endAll(user.id);
    });
    const recovered = {
      id: user.id,
      username: user.username,
      password,
      wasLocked: !!user.locked,
      wasDisabled: !!user.disabled,
      sessionsEnded: this.config.usesRedis,
    };
    await this.audit.record({
      action: 'user.recover',
      ...SYSTEM_ACTOR,
      targetId: user.id,
      targetName: user.username,
      detail: { username: user.username, unlocked: recovered.wasLocked, enabled: recovered.wasDisabled },
    });
    return recovered;
  }
}
