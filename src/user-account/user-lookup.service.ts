import { Injectable } from '@nestjs/common';

import { AppException } from '../common/app.exception';
import { ErrorCode } from '../common/error-code';
import { LoginTypes } from '../login-log/login-log.entity';
import { UserEntity } from './user.entity';
import { UserRepository } from './user.repository';
import { LOGIN_TYPE_OF } from './user-identifier';

/** Reads of the accounts that the other features and the login need; no writes. */
@Injectable()
export class UserLookup {
  constructor(private readonly users: UserRepository) {}

  /**
   * The account a login names: user name, then mobile, then e-mail, and the matching field is the
   * log's login type. Through the identifiers table, so user names and e-mails match whatever
   * their case, the same way on every database. The id only (see UserRepository.findForLogin).
   */
  async findForLogin(account: string): Promise<{ userId: string; loginType: LoginTypes } | null> {
    const found = await this.users.findForLogin(account);
    return found && { userId: found.userId, loginType: LOGIN_TYPE_OF[found.kind] };
  }

  /**
   * The current row (lock and disable state may have changed since the caller read it). Callers that
   * act on a user go on with the row's own id, not the one given: MariaDB matches ids whatever their
   * case or trailing spaces, but the mutex, the session keys and the self check compare exact strings.
   */
  async get(id: string): Promise<UserEntity> {
    const user = await this.users.byId(id);
    if (!user) throw new AppException(ErrorCode.NOT_FOUND);
    return user;
  }

  /** As get, with the password hash. */
  async withPassword(id: string): Promise<UserEntity> {
    const user = await this.users.withPassword(id);
    if (!user) throw new AppException(ErrorCode.NOT_FOUND);
    return user;
  }

  /** id → user, for lists that show who holds a session. */
  async byIds(ids: string[]): Promise<Map<string, UserEntity>> {
    const unique = [...new Set(ids)];
    if (!unique.length) return new Map();
    const rows = await this.users.byIds(unique);
    return new Map(rows.map((u) => [u.id, u]));
  }

  count(): Promise<number> {
    return this.users.count();
  }
}
