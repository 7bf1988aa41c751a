import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { Brackets, DataSource, In, Repository } from 'typeorm';

import { PreparedSelect } from '../common/prepared-select';
import { PiiCipher } from '../pii/pii-cipher';
import type { UserState } from './dto/user.dto';
import { DAY_MS } from './password-expiry';
import { PasswordHistoryEntity } from './password-history.entity';
import { UserRoleEntity } from './role.entity';
import { UserEntity } from './user.entity';
import { Identifier, IDENTIFIER_KINDS, IdentifierKind, normaliseIdentifier } from './user-identifier';
import { UserIdentifierEntity } from './user-identifier.entity';

/** What the user list can be narrowed by. */
export interface UserFilter {
  /** Part of the user name, name, mobile or e-mail, whatever its case. */
  keyword?: string;
  /** As of `now` under the account strategy's passwordExpireDays (see statePredicate). */
  state?: { state: UserState; now: Date; passwordExpireDays: number };
}

/**
 * No successful login since `cutoff` (nor creation), nor an administrator's enable, unlock or reset;
 * not deleted (also for the job's UPDATE, which the delete-date column does not filter).
 */
const DORMANT_AT =
  'COALESCE(u.last_login_time, u.create_time) <= :cutoff AND (u.failure_reset_time IS NULL OR u.failure_reset_time <= :cutoff) AND u.delete_time IS NULL';

/** A user as created: lock times start empty (the columns' default), not deleted. */
export type NewUserRow = Omit<UserEntity, 'unlockTime' | 'failureResetTime' | 'lastLoginTime' | 'deleteTime'>;

/** What /sys/user/update changes: the given fields, the identifiers they give and the role set. */
export interface UserChange {
  fields: Partial<Pick<UserEntity, 'username' | 'name' | 'mobile' | 'email'>>;
  /** The user's identifiers after the change (all of them), when the user name, mobile or e-mail change. */
  identifiers?: Identifier[];
  /** The user's roles after the change (all of them), when they change. */
  roleCodes?: string[];
}

/**
 * `sys_user`, `sys_user_identifier` and `sys_password_history` (and the role links written with a
 * new user): the only place that queries them. Rows come back without the password hash unless the method's name says so.
 */
@Injectable()
export class UserRepository {
  /** The two reads every login makes (findForLogin, withPassword), their SQL written once. */
  private readonly heldIdentifiers: PreparedSelect<UserIdentifierEntity>;
  private readonly rowWithPassword: PreparedSelect<UserEntity>;
  private lastLoginUpdate?: string;

  constructor(
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
    @InjectRepository(UserIdentifierEntity) private readonly identifiers: Repository<UserIdentifierEntity>,
    @InjectRepository(PasswordHistoryEntity) private readonly history: Repository<PasswordHistoryEntity>,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly pii: PiiCipher,
  ) {
    this.heldIdentifiers = new PreparedSelect(
      identifiers
        .createQueryBuilder('i')
        .innerJoin(UserEntity, 'u', 'u.id = i.user_id AND u.delete_time IS NULL')
        .where('i.value IN (:...values)'),
    );
    this.rowWithPassword = new PreparedSelect(
      users.createQueryBuilder('u').addSelect('u.password').where('u.id = :id'),
    );
  }

  /**
   * The values sys_user_identifier may hold for the normalised `value` of `kind`: user names as they are; mobiles and
   * e-mails as keyed hashes (under the current and the previous keys and suites), and as they are until
   * PiiReencryptJob has moved a row (docs/security.md#personal-data). Hashing, never decrypting: a login stays cheap.
   */
  private storedForms(kind: IdentifierKind, value: string): string[] {
    return kind === 'username' ? [value] : [...this.pii.lookupHashes(value), value];
  }

  /** The rows of `identifiers` as stored: mobiles and e-mails as their current hash. */
  private storedIdentifiers(identifiers: Identifier[], userId: string) {
    return identifiers.map((i) => ({
      kind: i.kind,
      value: i.kind === 'username' ? i.value : this.pii.hash(i.value),
      userId,
    }));
  }

  /** The sealed mobile and e-mail, their hashes and the version, for a row whose plain values are these. */
  private sealedFields(mobile: string | null, email: string | null) {
    return {
      mobile: this.pii.seal(mobile),
      email: this.pii.seal(email),
      mobileHash: mobile === null ? null : this.pii.hash(normaliseIdentifier('mobile', mobile)),
      emailHash: email === null ? null : this.pii.hash(normaliseIdentifier('email', email)),
      piiVersion: this.pii.version,
    };
  }

  /**
   * The id of the user whose user name, mobile or e-mail is `account`, in that order;
   * `kind` is the field that matched. Through sys_user_identifier, so user names and
   * e-mails match whatever their case, and the same way on every database. Only the id: a login
   * reads the row itself under the account's mutex, where its state counts.
   */
  async findForLogin(account: string): Promise<{ userId: string; kind: IdentifierKind } | null> {
    // Only identifiers of users not deleted, in the same one query whether the account
    // never existed or was deleted: the two take the same path and the same time from here on.
    const forms = IDENTIFIER_KINDS.map((kind) => ({
      kind,
      values: new Set(this.storedForms(kind, normaliseIdentifier(kind, account))),
    }));
    const held = await this.heldIdentifiers.many({ values: [...new Set(forms.flatMap((f) => [...f.values]))] });
    // In the lookup order (user name, then mobile, then e-mail), as matchLogin in user-identifier.ts.
    for (const { kind, values } of forms) {
      const hit = held.find((h) => h.kind === kind && values.has(h.value));
      if (hit) return { userId: hit.userId, kind };
    }
    return null;
  }

  /** The user whose user name is `username` as a login finds it (ignoring case). */
  async byUsername(username: string): Promise<UserEntity | null> {
    const held = await this.identifiers.findOne({
      where: { kind: 'username', value: normaliseIdentifier('username', username) },
    });
    return held && this.users.findOne({ where: { id: held.userId } });
  }

  byId(id: string): Promise<UserEntity | null> {
    return this.users.findOne({ where: { id } });
  }

  withPassword(id: string): Promise<UserEntity | null> {
    return this.rowWithPassword.one({ id });
  }

  /** The users among `ids` that exist (ids given once or more). */
  byIds(ids: string[]): Promise<UserEntity[]> {
    return this.users.find({ where: { id: In(ids) } });
  }

  /** Every user row ever created, deleted ones too (the first start's admin is made only when there is none). */
  count(): Promise<number> {
    return this.users.count({ withDeleted: true });
  }

  /** The users holding at least one of the roles `codes` (each once). */
  holdingRoles(codes: string[]): Promise<UserEntity[]> {
    return this.users
      .createQueryBuilder('u')
      .innerJoin(UserRoleEntity, 'ur', 'ur.user_id = u.id')
      .where('ur.role_code IN (:...codes)', { codes })
      .getMany();
  }

  /**
   * The values among `values` that some user already holds as user name, mobile or
   * e-mail, other than `exceptUserId`. Deleted users keep theirs (identifiers stay taken).
   */
  async identifiersTaken(values: string[], exceptUserId?: string): Promise<Set<string>> {
    if (!values.length) return new Set();
    // Every stored form of every value, whatever field holds it: the rule is across fields.
    const formsOf = new Map(values.map((v) => [v, new Set([v, ...this.pii.lookupHashes(v)])]));
    const rows = await this.identifiers.find({
      where: { value: In([...new Set([...formsOf.values()].flatMap((f) => [...f]))]) },
    });
    const held = new Set(rows.filter((r) => r.userId !== exceptUserId).map((r) => r.value));
    return new Set(values.filter((v) => [...formsOf.get(v)!].some((f) => held.has(f))));
  }

  /** How many users there are, and how many are in `state` (a user may be in several). */
  async countsByState(
    states: readonly UserState[],
    now: Date,
    passwordExpireDays: number,
  ): Promise<{ total: number; byState: Record<UserState, number> }> {
    const total = await this.users.count();
    const byState = {} as Record<UserState, number>;
    for (const state of states)
      byState[state] = await this.users
        .createQueryBuilder('u')
        .where(statePredicate({ state, now, passwordExpireDays }))
        .getCount();
    return { total, byState };
  }

  /** Users whose password is not expired yet and expires within `withinDays` (never when passwordExpireDays is 0). */
  countExpiringWithin(now: Date, passwordExpireDays: number, withinDays: number): Promise<number> {
    if (passwordExpireDays <= 0) return Promise.resolve(0);
    const changedAfter = new Date(now.getTime() - passwordExpireDays * DAY_MS);
    const changedBefore = new Date(changedAfter.getTime() + withinDays * DAY_MS);
    return this.users
      .createQueryBuilder('u')
      .where('COALESCE(u.password_update_time, u.create_time) >= :changedAfter', { changedAfter })
      .andWhere('COALESCE(u.password_update_time, u.create_time) < :changedBefore', { changedBefore })
      .getCount();
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
      // LOWER on both sides: the identifier columns compare bytes, and the keyword
      // search stays case-insensitive as before, on both databases. Mobiles and e-mails are sealed: they match
      // whole, through their keyed hash (docs/security.md#personal-data), or in part while a row is not encrypted yet.
      const mobileHashes = this.pii.lookupHashes(normaliseIdentifier('mobile', filter.keyword));
      const emailHashes = this.pii.lookupHashes(normaliseIdentifier('email', filter.keyword));
      qb.where(
        new Brackets((w) => {
          for (const f of ['username', 'name'])
            w.orWhere(`LOWER(u.${f}) LIKE :like ESCAPE '!'`, { like: like.toLowerCase() });
          w.orWhere('u.mobile_hash IN (:...mobileHashes)', { mobileHashes });
          w.orWhere('u.email_hash IN (:...emailHashes)', { emailHashes });
          for (const f of ['mobile', 'email'])
            w.orWhere(`(u.pii_version IS NULL AND LOWER(u.${f}) LIKE :like ESCAPE '!')`, { like: like.toLowerCase() });
        }),
      );
    }
    if (filter.state) qb.andWhere(statePredicate(filter.state));
    return qb
      .orderBy('u.create_time', 'ASC')
      .addOrderBy('u.id', 'ASC')
      .skip((pageNum - 1) * pageSize)
      .take(pageSize)
      .getManyAndCount();
  }

  /**
   * A new user with its identifiers and roles, in one transaction. Identifiers are unique across fields: the primary key of
   * sys_user_identifier refuses a value another user holds in any field, atomically, also when
   * parallel creates passed the caller's check together; the identifiers are written first, so that
   * parallel creates of one value meet on that one key before any other. Throws the driver's unique
   * violation or deadlock error as it comes.
   */
  async insertWithIdentifiers(user: NewUserRow, identifiers: Identifier[], roleCodes: string[]): Promise<void> {
    await this.dataSource.transaction(async (tx) => {
      await tx.insert(UserIdentifierEntity, this.storedIdentifiers(identifiers, user.id));
      await tx.insert(UserEntity, { ...user, ...this.sealedFields(user.mobile, user.email) });
      if (roleCodes.length)
        await tx.insert(
          UserRoleEntity,
          roleCodes.map((roleCode) => ({ userId: user.id, roleCode })),
        );
    });
  }

  /**
   * /sys/user/update, in one transaction: the fields, then (when given) the identifiers
   * replaced — the primary key of sys_user_identifier refuses a value another user holds, also under
   * parallel updates and creates — and the role set replaced. Throws the driver's unique violation
   * or deadlock error as it comes.
   */
  async update(id: string, change: UserChange): Promise<void> {
    await this.dataSource.transaction(async (tx) => {
      if (change.identifiers) {
        await tx.delete(UserIdentifierEntity, { userId: id });
        await tx.insert(UserIdentifierEntity, this.storedIdentifiers(change.identifiers, id));
      }
      const { mobile, email, ...fields } = change.fields;
      let stored: Partial<UserEntity> = fields;
      if (mobile !== undefined || email !== undefined) {
        // Both are sealed again, so that the row's one version speaks for both.
        const row = await tx.findOne(UserEntity, { where: { id }, withDeleted: true });
        stored = {
          ...fields,
          ...this.sealedFields(
            mobile !== undefined ? mobile : this.pii.reveal(row?.mobile),
            email !== undefined ? email : this.pii.reveal(row?.email),
          ),
        };
      }
      if (Object.keys(stored).length) await tx.update(UserEntity, { id }, stored);
      if (change.roleCodes) {
        await tx.delete(UserRoleEntity, { userId: id });
        if (change.roleCodes.length)
          await tx.insert(
            UserRoleEntity,
            change.roleCodes.map((roleCode) => ({ userId: id, roleCode })),
          );
      }
    });
  }

  /**
   * Soft delete at `at`: the row, its identifiers, roles and log rows stay (identifiers
   * stay taken); every lookup leaves it out from now on (UserEntity.deleteTime).
   */
  async softDelete(id: string, at: Date): Promise<void> {
    await this.users.update(id, { deleteTime: at });
  }

  /** Locked until `until`. */
  async lock(id: string, until: Date): Promise<void> {
    await this.users.update(id, { locked: true, unlockTime: until });
  }

  /** Unlock, or a lock whose time has passed; failures before `at` no longer count. */
  async unlock(id: string, at: Date): Promise<void> {
    await this.users.update(id, { locked: false, unlockTime: null, failureResetTime: at });
  }

  /** Disable. */
  async disable(id: string): Promise<void> {
    await this.users.update(id, { disabled: true, unlockTime: null });
  }

  /** A successful login at `at` (dormantDays counts from it). */
  async recordLogin(id: string, at: Date): Promise<void> {
    // Every login writes it: the statement as Repository.update writes it, its SQL made once.
    const { driver } = this.dataSource;
    const { metadata } = this.users;
    const column = metadata.findColumnWithPropertyName('lastLoginTime')!;
    const key = metadata.primaryColumns[0].databaseName;
    this.lastLoginUpdate ??= `UPDATE ${driver.escape(metadata.tableName)} SET ${driver.escape(column.databaseName)} = ? WHERE ${driver.escape(key)} = ?`;
    await this.dataSource.query(this.lastLoginUpdate, [driver.preparePersistentValue(at, column), id]);
  }

  /**
   * dormantDays: enabled users whose last successful login (never: their creation) is at
   * or before `cutoff`, and whom no administrator enabled, unlocked or reset since (failure_reset_time:
   * an account enabled again must get the time to log in), leaving out holders of the roles
   * `exemptRoles`; the first `limit` with an id greater than `afterId`, by id.
   */
  dormantSince(cutoff: Date, exemptRoles: string[], afterId: string, limit: number): Promise<UserEntity[]> {
    const qb = this.users
      .createQueryBuilder('u')
      .where('u.id > :afterId', { afterId })
      .andWhere(DORMANT_AT, { cutoff })
      .andWhere('(u.disabled IS NULL OR u.disabled = :enabled)', { enabled: false });
    if (exemptRoles.length) {
      qb.andWhere(
        (w) =>
          `u.id NOT IN ${w
            .subQuery()
            .select('ur.user_id')
            .from(UserRoleEntity, 'ur')
            .where('ur.role_code IN (:...exemptRoles)')
            .getQuery()}`,
        { exemptRoles },
      );
    }
    return qb.orderBy('u.id', 'ASC').take(limit).getMany();
  }

  /**
   * Disables the user only while it is still enabled and still dormant at `cutoff` (a login or an
   * administrator may have come first); true when this call disabled it.
   */
  async disableIfDormant(id: string, cutoff: Date): Promise<boolean> {
    const result = await this.users
      .createQueryBuilder()
      .update(UserEntity)
      .set({ disabled: true, unlockTime: null })
      .where('id = :id', { id })
      .andWhere('(disabled IS NULL OR disabled = :enabled)', { enabled: false })
      .andWhere(DORMANT_AT.replace(/u\./g, ''), { cutoff })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  /** Enable; failures before `at` no longer count. */
  async enable(id: string, at: Date): Promise<void> {
    await this.users.update(id, { disabled: false, unlockTime: null, failureResetTime: at });
  }

  /**
   * Change: `hash` is the user's own password since `at`. `keepPrevious`: how many of
   * the user's previous passwords sys_password_history keeps (see replacePassword).
   */
  async setPassword(id: string, hash: string, at: Date, keepPrevious: number): Promise<void> {
    await this.replacePassword(id, { password: hash, passwordUpdateTime: at }, at, keepPrevious);
  }

  /** Reset: `hash` is an initial password; failures before `at` no longer count. */
  async resetPassword(id: string, hash: string, at: Date, keepPrevious: number): Promise<void> {
    await this.replacePassword(
      id,
      { password: hash, passwordUpdateTime: null, failureResetTime: at },
      at,
      keepPrevious,
    );
  }

  /** Recovery: unlocked, enabled, with the initial password `hash`; failures before `at` no longer count. */
  async recover(id: string, hash: string, at: Date, keepPrevious: number): Promise<void> {
    await this.replacePassword(
      id,
      {
        locked: false,
        unlockTime: null,
        disabled: false,
        password: hash,
        passwordUpdateTime: null,
        failureResetTime: at,
      },
      at,
      keepPrevious,
    );
  }

  /**
   * The hashes of the user's previous passwords, newest first, at most `limit`
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
  private async replacePassword(
    id: string,
    fields: Partial<UserEntity>,
    at: Date,
    keepPrevious: number,
  ): Promise<void> {
    await this.dataSource.transaction(async (tx) => {
      if (keepPrevious > 0) {
        const current = await tx
          .createQueryBuilder(UserEntity, 'u')
          .addSelect('u.password')
          .where('u.id = :id', { id })
          .getOne();
        if (current)
          await tx.insert(PasswordHistoryEntity, { userId: id, passwordHash: current.password, replacedTime: at });
      }
      await tx.update(UserEntity, id, fields);
      const rows = await tx.find(PasswordHistoryEntity, {
        select: { id: true },
        where: { userId: id },
        order: { id: 'DESC' },
      });
      const stale = rows.slice(Math.max(0, keepPrevious)).map((r) => r.id);
      if (stale.length) await tx.delete(PasswordHistoryEntity, { id: In(stale) });
    });
  }
}

/**
 * User states as SQL, as of `now` (the injected clock), so that the filter pages in the
 * database. They follow the login's own rules: locked = the lock still refuses a login (locked, and
 * the unlock time empty or not past: unlockDue in lock-policy.ts); disabled = the flag; expired =
 * (passwordExpiresAt: the last change, or the creation, plus passwordExpireDays is before
 * now; never when 0); initial = password_update_time empty (never changed); normal = none of them. The rows
 * carry the same rule computed in code (accountStates in account-state.ts); a change to one is a change to both.
 */
function statePredicate({ state, now, passwordExpireDays }: NonNullable<UserFilter['state']>): Brackets {
  const cutoff = new Date(now.getTime() - passwordExpireDays * DAY_MS);
  // COALESCE: the flags are nullable, and NOT of a NULL comparison would drop the row.
  const locked = 'COALESCE(u.locked, 0) = 1 AND (u.unlock_time IS NULL OR u.unlock_time >= :now)';
  const disabled = 'COALESCE(u.disabled, 0) = 1';
  const initial = 'u.password_update_time IS NULL';
  const expired = passwordExpireDays > 0 ? 'COALESCE(u.password_update_time, u.create_time) < :cutoff' : '1 = 0';
  const params = { now, cutoff };
  return new Brackets((w) => {
    switch (state) {
      case 'locked':
        w.where(locked, params);
        break;
      case 'disabled':
        w.where(disabled, params);
        break;
      case 'initial':
        w.where(initial);
        break;
      case 'expired':
        w.where(expired, params);
        break;
      case 'normal':
        w.where(`NOT (${locked})`, params)
          .andWhere(`NOT (${disabled})`)
          .andWhere(`NOT (${initial})`)
          .andWhere(`NOT (${expired})`, params);
        break;
    }
  });
}
