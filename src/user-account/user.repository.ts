import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { Brackets, DataSource, In, Repository } from 'typeorm';
import { UserRoleEntity } from './role.entity';
import { Identifier, IdentifierKind, loginCandidates, matchLogin, normaliseIdentifier } from './user-identifier';
import { UserIdentifierEntity } from './user-identifier.entity';
import { PasswordHistoryEntity } from './password-history.entity';
import { UserEntity } from './user.entity';

/** What the user list can be narrowed by (spec 2.4). */
export interface UserFilter {
  /** Part of the user name, name, mobile or e-mail, whatever its case. */
  keyword?: string;
}

/** Contract §9: no successful login since `cutoff` (nor creation), nor an administrator's enable, unlock or reset. */
const DORMANT_AT = 'COALESCE(u.last_login_time, u.create_time) <= :cutoff AND (u.failure_reset_time IS NULL OR u.failure_reset_time <= :cutoff)';

/** A user as created: lock times start empty (the columns' default). */
export type NewUserRow = Omit<UserEntity, 'unlockTime' | 'failureResetTime' | 'lastLoginTime'>;

/**
 * `sys_user`, `sys_user_identifier` and `sys_password_history` (and the role links written with a
 * new user): the only place that queries them. Rows come back without the password hash unless the method's name says so.
 */
@Injectable()
export class UserRepository {
  constructor(
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
    @InjectRepository(UserIdentifierEntity) private readonly identifiers: Repository<UserIdentifierEntity>,
    @InjectRepository(PasswordHistoryEntity) private readonly history: Repository<PasswordHistoryEntity>,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  /**
   * Contract §5: the user (with the password hash) whose user name, mobile or e-mail is `account`,
   * in that order; `kind` is the field that matched. Contract §11: through sys_user_identifier, so
   * user names and e-mails match whatever their case, and the same way on every database.
   */
  async findForLogin(account: string): Promise<{ user: UserEntity; kind: IdentifierKind } | null> {
    const hit = matchLogin(account, await this.identifiers.find({ where: { value: In(loginCandidates(account)) } }));
    if (!hit) return null;
    const user = await this.withPassword(hit.userId);
    return user ? { user, kind: hit.kind } : null;
  }

  /** The user whose user name is `username` as a login finds it (contract §11: ignoring case). */
  async byUsername(username: string): Promise<UserEntity | null> {
    const held = await this.identifiers.findOne({ where: { kind: 'username', value: normaliseIdentifier('username', username) } });
    return held && this.users.findOne({ where: { id: held.userId } });
  }

  byId(id: string): Promise<UserEntity | null> {
    return this.users.findOne({ where: { id } });
  }

  withPassword(id: string): Promise<UserEntity | null> {
    return this.users.createQueryBuilder('u').addSelect('u.password').where('u.id = :id', { id }).getOne();
  }

  /** The users among `ids` that exist (ids given once or more). */
  byIds(ids: string[]): Promise<UserEntity[]> {
    return this.users.find({ where: { id: In(ids) } });
  }

  count(): Promise<number> {
    return this.users.count();
  }

  /** The users holding at least one of the roles `codes` (each once). */
  holdingRoles(codes: string[]): Promise<UserEntity[]> {
    return this.users.createQueryBuilder('u')
      .innerJoin(UserRoleEntity, 'ur', 'ur.user_id = u.id')
      .where('ur.role_code IN (:...codes)', { codes })
      .getMany();
  }

  /** Contract §11: the values among `values` that some user already holds as user name, mobile or e-mail. */
  async identifiersTaken(values: string[]): Promise<Set<string>> {
    return new Set((await this.identifiers.find({ where: { value: In(values) } })).map((r) => r.value));
  }

  /**
   * One page of the users matching `filter`, oldest first, and how many match in all.
   */
  page(filter: UserFilter, pageNum: number, pageSize: number): Promise<[UserEntity[], number]> {
    const qb = this.users.createQueryBuilder('u');
    if (filter.keyword) {
      // '!' rather than a backslash as the LIKE escape: MySQL/MariaDB read '\' inside a string literal as an
      // escaped quote (a syntax error), SQLite does not; '!' means the same on both.
      const like = `%${filter.keyword.replace(/[!%_]/g, (c) => `!${c}`)}%`;
      // LOWER on both sides: the identifier columns compare bytes (contract §11), and the keyword
      // search stays case-insensitive as before, on both databases.
      qb.where(new Brackets((w) => {
        for (const f of ['username', 'name', 'mobile', 'email']) w.orWhere(`LOWER(u.${f}) LIKE :like ESCAPE '!'`, { like: like.toLowerCase() });
      }));
    }
    return qb.orderBy('u.create_time', 'ASC').addOrderBy('u.id', 'ASC')
      .skip((pageNum - 1) * pageSize).take(pageSize).getManyAndCount();
  }

  /**
   * A new user with its identifiers and roles, in one transaction. Contract §11: the primary key of
   * sys_user_identifier refuses a value another user holds in any field, atomically, also when
   * parallel creates passed the caller's check together; the identifiers are written first, so that
   * parallel creates of one value meet on that one key before any other. Throws the driver's unique
   * violation or deadlock error as it comes.
   */
  async insertWithIdentifiers(user: NewUserRow, identifiers: Identifier[], roleCodes: string[]): Promise<void> {
    await this.dataSource.transaction(async (tx) => {
      await tx.insert(UserIdentifierEntity, identifiers.map((i) => ({ ...i, userId: user.id })));
      await tx.insert(UserEntity, user);
      if (roleCodes.length) await tx.insert(UserRoleEntity, roleCodes.map((roleCode) => ({ userId: user.id, roleCode })));
    });
  }

  /** Spec 3.1 / 4.5: locked until `until`. */
  async lock(id: string, until: Date): Promise<void> {
    await this.users.update(id, { locked: true, unlockTime: until });
  }

  /** Spec 4.5 unlock, or a lock whose time has passed; failures before `at` no longer count (contract §5). */
  async unlock(id: string, at: Date): Promise<void> {
    await this.users.update(id, { locked: false, unlockTime: null, failureResetTime: at });
  }

  /** Spec 4.5 disable. */
  async disable(id: string): Promise<void> {
    await this.users.update(id, { disabled: true, unlockTime: null });
  }

  /** A successful login at `at` (contract §9 dormantDays counts from it). */
  async recordLogin(id: string, at: Date): Promise<void> {
    await this.users.update(id, { lastLoginTime: at });
  }

  /**
   * Contract §9 dormantDays: enabled users whose last successful login (never: their creation) is at
   * or before `cutoff`, and whom no administrator enabled, unlocked or reset since (failure_reset_time:
   * an account enabled again must get the time to log in), leaving out holders of the roles
   * `exemptRoles`; the first `limit` with an id greater than `afterId`, by id.
   */
  dormantSince(cutoff: Date, exemptRoles: string[], afterId: string, limit: number): Promise<UserEntity[]> {
    const qb = this.users.createQueryBuilder('u')
      .where('u.id > :afterId', { afterId })
      .andWhere(DORMANT_AT, { cutoff })
      .andWhere('(u.disabled IS NULL OR u.disabled = :enabled)', { enabled: false });
    if (exemptRoles.length) {
      qb.andWhere((w) => `u.id NOT IN ${w.subQuery().select('ur.user_id').from(UserRoleEntity, 'ur')
        .where('ur.role_code IN (:...exemptRoles)').getQuery()}`, { exemptRoles });
    }
    return qb.orderBy('u.id', 'ASC').take(limit).getMany();
  }

  /**
   * Disables the user only while it is still enabled and still dormant at `cutoff` (a login or an
   * administrator may have come first); true when this call disabled it.
   */
  async disableIfDormant(id: string, cutoff: Date): Promise<boolean> {
    const result = await this.users.createQueryBuilder().update(UserEntity)
      .set({ disabled: true, unlockTime: null })
      .where('id = :id', { id })
      .andWhere('(disabled IS NULL OR disabled = :enabled)', { enabled: false })
      .andWhere(DORMANT_AT.replace(/u\./g, ''), { cutoff })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  /** Spec 4.5 enable; failures before `at` no longer count (contract §5). */
  async enable(id: string, at: Date): Promise<void> {
    await this.users.update(id, { disabled: false, unlockTime: null, failureResetTime: at });
  }

  /**
   * Spec 4.3 change: `hash` is the user's own password since `at`. `keepPrevious`: how many of
   * the user's previous passwords sys_password_history keeps (contract §9, see replacePassword).
   */
  async setPassword(id: string, hash: string, at: Date, keepPrevious: number): Promise<void> {
    await this.replacePassword(id, { password: hash, passwordUpdateTime: at }, at, keepPrevious);
  }

  /** Spec 4.3 reset: `hash` is an initial password (contract §4); failures before `at` no longer count. */
  async resetPassword(id: string, hash: string, at: Date, keepPrevious: number): Promise<void> {
    await this.replacePassword(id, { password: hash, passwordUpdateTime: null, failureResetTime: at }, at, keepPrevious);
  }

  /** Contract §12 recovery: unlocked, enabled, with the initial password `hash`; failures before `at` no longer count. */
  async recover(id: string, hash: string, at: Date, keepPrevious: number): Promise<void> {
    await this.replacePassword(id, {
      locked: false, unlockTime: null, disabled: false,
      password: hash, passwordUpdateTime: null, failureResetTime: at,
    }, at, keepPrevious);
  }

  /**
   * Contract §9: the hashes of the user's previous passwords, newest first, at most `limit`
   * (the current one is not among them: it is sys_user.password).
   */
  async previousPasswords(userId: string, limit: number): Promise<string[]> {
    if (limit <= 0) return [];
    const rows = await this.history.find({ where: { userId }, order: { id: 'DESC' }, take: limit });
    return rows.map((r) => r.passwordHash);
  }

  /**
   * Every way a password is set goes through here, in one transaction: the hash being replaced
   * joins sys_password_history, and the user's rows beyond the newest `keepPrevious` go (all of
   * them with 0: no hash is kept that the policy does not need). Ids order the rows, not times:
   * two changes within one millisecond keep their order.
   */
  private async replacePassword(id: string, fields: Partial<UserEntity>, at: Date, keepPrevious: number): Promise<void> {
    await this.dataSource.transaction(async (tx) => {
      if (keepPrevious > 0) {
        const current = await tx.createQueryBuilder(UserEntity, 'u').addSelect('u.password').where('u.id = :id', { id }).getOne();
        if (current) await tx.insert(PasswordHistoryEntity, { userId: id, passwordHash: current.password, replacedTime: at });
      }
      await tx.update(UserEntity, id, fields);
      const rows = await tx.find(PasswordHistoryEntity, { select: { id: true }, where: { userId: id }, order: { id: 'DESC' } });
      const stale = rows.slice(Math.max(0, keepPrevious)).map((r) => r.id);
      if (stale.length) await tx.delete(PasswordHistoryEntity, { id: In(stale) });
    });
  }
}
