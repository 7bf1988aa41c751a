import type { Provider } from '@nestjs/common';

import { LoginLogEntity, LoginStatus, LoginTypes } from '../../src/login-log/login-log.entity';
import { LoginLogCursor, LoginLogFilter, LoginLogRepository } from '../../src/login-log/login-log.repository';
import { accountStates } from '../../src/user-account/account-state';
import type { UserState } from '../../src/user-account/dto/user.dto';
import { RoleEntity, UserRoleEntity } from '../../src/user-account/role.entity';
import { RoleRepository } from '../../src/user-account/role.repository';
import { UserEntity } from '../../src/user-account/user.entity';
import { NewUserRow, UserChange, UserFilter, UserRepository } from '../../src/user-account/user.repository';
import {
  Identifier,
  IdentifierKind,
  identifiersOf,
  loginCandidates,
  matchLogin,
  normaliseIdentifier,
} from '../../src/user-account/user-identifier';
import { UserIdentifierEntity } from '../../src/user-account/user-identifier.entity';

/**
 * In-memory repositories for unit specs: the tables as maps, shared between the repositories as the
 * database shares them. Each class implements every public method of the real repository, so that a
 * renamed or changed method breaks the build here rather than a spec at run time.
 */
type Shape<T> = Pick<T, keyof T>;

interface Tables {
  users: Map<string, UserEntity>;
  /** sys_user_identifier, by its key, the normalised value. */
  identifiers: Map<string, UserIdentifierEntity>;
  roles: Map<string, RoleEntity>;
  userRoles: UserRoleEntity[];
}

/** As the drivers report a clash of keys (see common/db-errors.ts). */
const duplicate = (value: string) => Object.assign(new Error(`Duplicate entry '${value}'`), { code: 'ER_DUP_ENTRY' });

/** A row as read without its hash (the column is select: false). */
const withoutPassword = ({ password: _password, ...u }: UserEntity) => ({ ...u }) as UserEntity;

/** Not soft-deleted: every read but count leaves deleted rows out, as TypeORM's delete-date column does. */
const live = (u: UserEntity | undefined): u is UserEntity => !!u && !u.deleteTime;

export class InMemoryUserRepository implements Shape<UserRepository> {
  /** The rows themselves: a spec may change one to stand for a change by another request. */
  readonly rows: Map<string, UserEntity>;
  /** Set: reads by id fail with it (a database going away). */
  failWith: unknown = null;

  constructor(private readonly tables: Tables) {
    this.rows = tables.users;
  }

  /** A user as if created, with its identifiers and the roles `roleCodes`; the row is kept as given. */
  add(user: UserEntity, roleCodes: string[] = []): UserEntity {
    this.rows.set(user.id, user);
    for (const i of identifiersOf(user)) this.tables.identifiers.set(i.value, { ...i, userId: user.id });
    for (const roleCode of roleCodes) this.tables.userRoles.push({ userId: user.id, roleCode });
    return user;
  }

  async findForLogin(account: string): Promise<{ userId: string; kind: IdentifierKind } | null> {
    const candidates = loginCandidates(account);
    const hit = matchLogin(
      account,
      [...this.tables.identifiers.values()].filter(
        (i) => candidates.includes(i.value) && live(this.rows.get(i.userId)),
      ),
    );
    return hit ? { userId: hit.userId, kind: hit.kind } : null;
  }

  async byUsername(username: string): Promise<UserEntity | null> {
    const held = this.tables.identifiers.get(normaliseIdentifier('username', username));
    return held?.kind === 'username' ? this.byId(held.userId) : null;
  }

  async byId(id: string): Promise<UserEntity | null> {
    if (this.failWith) throw this.failWith;
    const row = this.rows.get(id);
    return live(row) ? withoutPassword(row) : null;
  }

  async withPassword(id: string): Promise<UserEntity | null> {
    const row = this.rows.get(id);
    return live(row) ? { ...row } : null;
  }

  async byIds(ids: string[]): Promise<UserEntity[]> {
    return [...this.rows.values()].filter((u) => live(u) && ids.includes(u.id)).map(withoutPassword);
  }

  async count(): Promise<number> {
    return this.rows.size;
  }

  async holdingRoles(codes: string[]): Promise<UserEntity[]> {
    const ids = new Set(this.tables.userRoles.filter((l) => codes.includes(l.roleCode)).map((l) => l.userId));
    return [...this.rows.values()].filter((u) => live(u) && ids.has(u.id)).map(withoutPassword);
  }

  async identifiersTaken(values: string[], exceptUserId?: string): Promise<Set<string>> {
    return new Set(
      values.filter((v) => this.tables.identifiers.has(v) && this.tables.identifiers.get(v)!.userId !== exceptUserId),
    );
  }

  async countsByState(
    states: readonly UserState[],
    now: Date,
    passwordExpireDays: number,
  ): Promise<{ total: number; byState: Record<UserState, number> }> {
    const users = [...this.rows.values()].filter(live);
    const byState = Object.fromEntries(
      states.map((state) => [state, users.filter((u) => inState(u, { state, now, passwordExpireDays })).length]),
    ) as Record<UserState, number>;
    return { total: users.length, byState };
  }

  async countExpiringWithin(now: Date, passwordExpireDays: number, withinDays: number): Promise<number> {
    if (passwordExpireDays <= 0) return 0;
    const after = now.getTime() - passwordExpireDays * 86_400_000;
    const before = after + withinDays * 86_400_000;
    return [...this.rows.values()]
      .filter(live)
      .filter((u) => (u.passwordUpdateTime ?? u.createTime).getTime() >= after)
      .filter((u) => (u.passwordUpdateTime ?? u.createTime).getTime() < before).length;
  }

  async page(filter: UserFilter, pageNum: number, pageSize: number): Promise<[UserEntity[], number]> {
    const keyword = filter.keyword?.toLowerCase();
    const matching = [...this.rows.values()]
      .filter(live)
      // As UserRepository.page: names in part; a mobile or an e-mail whole (they are sealed at rest).
      .filter(
        (u) =>
          !keyword ||
          [u.username, u.name].some((f) => f?.toLowerCase().includes(keyword)) ||
          (u.mobile !== null &&
            normaliseIdentifier('mobile', u.mobile) === normaliseIdentifier('mobile', filter.keyword!)) ||
          (u.email !== null && normaliseIdentifier('email', u.email) === normaliseIdentifier('email', filter.keyword!)),
      )
      .filter((u) => !filter.state || inState(u, filter.state))
      .sort((a, b) => a.createTime.getTime() - b.createTime.getTime() || a.id.localeCompare(b.id));
    return [matching.slice((pageNum - 1) * pageSize, pageNum * pageSize).map(withoutPassword), matching.length];
  }

  async insertWithIdentifiers(user: NewUserRow, identifiers: Identifier[], roleCodes: string[]): Promise<void> {
    const taken = identifiers.find((i) => this.tables.identifiers.has(i.value));
    if (taken) throw duplicate(taken.value);
    if (this.rows.has(user.id)) throw duplicate(user.id);
    this.add({ unlockTime: null, failureResetTime: null, lastLoginTime: null, ...user }, roleCodes);
  }

  async update(id: string, change: UserChange): Promise<void> {
    if (change.identifiers) {
      const taken = change.identifiers.find(
        (i) =>
          this.tables.identifiers.get(i.value)?.userId !== undefined &&
          this.tables.identifiers.get(i.value)!.userId !== id,
      );
      if (taken) throw duplicate(taken.value);
      for (const [value, i] of [...this.tables.identifiers]) if (i.userId === id) this.tables.identifiers.delete(value);
      for (const i of change.identifiers) this.tables.identifiers.set(i.value, { ...i, userId: id });
    }
    this.change(id, change.fields);
    if (change.roleCodes) {
      this.tables.userRoles = this.tables.userRoles.filter((l) => l.userId !== id);
      for (const roleCode of change.roleCodes) this.tables.userRoles.push({ userId: id, roleCode });
    }
  }

  async softDelete(id: string, at: Date): Promise<void> {
    this.change(id, { deleteTime: at });
  }

  async lock(id: string, until: Date): Promise<void> {
    this.change(id, { locked: true, unlockTime: until });
  }

  async unlock(id: string, at: Date): Promise<void> {
    this.change(id, { locked: false, unlockTime: null, failureResetTime: at });
  }

  async disable(id: string): Promise<void> {
    this.change(id, { disabled: true, unlockTime: null });
  }

  async recordLogin(id: string, at: Date): Promise<void> {
    this.change(id, { lastLoginTime: at });
  }

  async dormantSince(cutoff: Date, exemptRoles: string[], afterId: string, limit: number): Promise<UserEntity[]> {
    const exempt = new Set(this.tables.userRoles.filter((l) => exemptRoles.includes(l.roleCode)).map((l) => l.userId));
    return [...this.rows.values()]
      .filter((u) => live(u) && u.id > afterId && !u.disabled && !exempt.has(u.id) && this.dormant(u, cutoff))
      .sort((a, b) => (a.id < b.id ? -1 : 1))
      .slice(0, limit)
      .map(withoutPassword);
  }

  async disableIfDormant(id: string, cutoff: Date): Promise<boolean> {
    const row = this.rows.get(id);
    if (!live(row) || row.disabled || !this.dormant(row, cutoff)) return false;
    this.change(id, { disabled: true, unlockTime: null });
    return true;
  }

  private dormant(u: UserEntity, cutoff: Date): boolean {
    return (
      (u.lastLoginTime ?? u.createTime).getTime() <= cutoff.getTime() &&
      (!u.failureResetTime || u.failureResetTime.getTime() <= cutoff.getTime())
    );
  }

  async enable(id: string, at: Date): Promise<void> {
    this.change(id, { disabled: false, unlockTime: null, failureResetTime: at });
  }

  async setPassword(id: string, hash: string, at: Date, keepPrevious: number): Promise<void> {
    this.replacePassword(id, { password: hash, passwordUpdateTime: at }, keepPrevious);
  }

  async resetPassword(id: string, hash: string, at: Date, keepPrevious: number): Promise<void> {
    this.replacePassword(id, { password: hash, passwordUpdateTime: null, failureResetTime: at }, keepPrevious);
  }

  async recover(id: string, hash: string, at: Date, keepPrevious: number): Promise<void> {
    this.replacePassword(
      id,
      {
        locked: false,
        unlockTime: null,
        disabled: false,
        password: hash,
        passwordUpdateTime: null,
        failureResetTime: at,
      },
      keepPrevious,
    );
  }

  async previousPasswords(userId: string, limit: number): Promise<string[]> {
    return limit > 0 ? (this.history.get(userId) ?? []).slice(0, limit) : [];
  }

  /** sys_password_history: the previous hashes of each user, newest first. */
  readonly history = new Map<string, string[]>();

  private replacePassword(id: string, changes: Partial<UserEntity>, keepPrevious: number): void {
    const row = this.rows.get(id);
    if (!row) return;
    const previous = keepPrevious > 0 ? [row.password, ...(this.history.get(id) ?? [])] : [];
    this.history.set(id, previous.slice(0, Math.max(0, keepPrevious)));
    Object.assign(row, changes);
  }

  /** As an UPDATE by id: no row, no change. */
  private change(id: string, changes: Partial<UserEntity>): void {
    const row = this.rows.get(id);
    if (row) Object.assign(row, changes);
  }
}

export class InMemoryRoleRepository implements Shape<RoleRepository> {
  readonly rows: Map<string, RoleEntity>;

  constructor(private readonly tables: Tables) {
    this.rows = tables.roles;
  }

  async insertIfAbsent(role: RoleEntity): Promise<void> {
    if (!this.rows.has(role.code)) this.rows.set(role.code, { ...role });
  }

  async all(): Promise<RoleEntity[]> {
    return [...this.rows.values()].sort((a, b) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0)).map(copyRole);
  }

  async byCodeIgnoringCase(code: string): Promise<RoleEntity[]> {
    return [...this.rows.values()].filter((r) => r.code.toLowerCase() === code.toLowerCase()).map(copyRole);
  }

  async byCodes(codes: string[]): Promise<RoleEntity[]> {
    return [...this.rows.values()].filter((r) => codes.includes(r.code)).map(copyRole);
  }

  async save(role: RoleEntity): Promise<RoleEntity> {
    this.rows.set(role.code, copyRole(role));
    return role;
  }

  async memberIds(code: string): Promise<string[]> {
    return (await this.members([code])).map((m) => m.userId);
  }

  async members(codes: string[]): Promise<{ roleCode: string; userId: string; username: string }[]> {
    return this.tables.userRoles
      .filter((l) => codes.includes(l.roleCode) && live(this.tables.users.get(l.userId)))
      .map((l) => ({ roleCode: l.roleCode, userId: l.userId, username: this.tables.users.get(l.userId)!.username }))
      .sort((a, b) => (a.username < b.username ? -1 : a.username > b.username ? 1 : 0));
  }

  async delete(code: string): Promise<void> {
    this.tables.userRoles = this.tables.userRoles.filter((l) => l.roleCode !== code);
    this.rows.delete(code);
  }

  async heldBy(userId: string): Promise<RoleEntity[]> {
    return this.byCodes(this.tables.userRoles.filter((l) => l.userId === userId).map((l) => l.roleCode));
  }

  async assignmentsOf(userIds: string[]): Promise<UserRoleEntity[]> {
    return this.tables.userRoles.filter((l) => userIds.includes(l.userId)).map((l) => ({ ...l }));
  }
}

const copyRole = (r: RoleEntity): RoleEntity => ({ ...r, permissions: [...r.permissions] });

/** User states by the rule the rows are shown with, which statePredicate's SQL follows. */
function inState(u: UserEntity, { state, now, passwordExpireDays }: NonNullable<UserFilter['state']>): boolean {
  return accountStates(u, passwordExpireDays, now).includes(state);
}

/** Login-log rows that prove a password or code on /sys/me/* rather than log in. */
const PROOFS: string[] = [LoginTypes.PASSCHANGE, LoginTypes.MFA, LoginTypes.REAUTH];

export class InMemoryLoginLogRepository implements Shape<LoginLogRepository> {
  /** The rows as written, oldest first, with ids counting up as the database gives them. */
  readonly rows: LoginLogEntity[] = [];
  /** Set: the next writes fail with it (a database going away). */
  failWith: unknown = null;

  onModuleInit() {}

  async insert(row: Omit<LoginLogEntity, 'id'>): Promise<string> {
    if (this.failWith) throw this.failWith;
    const id = String(this.rows.length + 1);
    this.rows.push({ ...row, id });
    return id;
  }

  async countsByQuarterHour(since: Date): Promise<{ quarter: number; success: boolean; count: number }[]> {
    const counts = new Map<string, { quarter: number; success: boolean; count: number }>();
    for (const r of this.rows.filter(
      (r) => r.loginTime.getTime() >= since.getTime() && !PROOFS.includes(r.loginType),
    )) {
      const quarter = Math.floor(r.loginTime.getTime() / 900_000);
      const success = r.status === LoginStatus.SUCCESS;
      const entry = counts.get(`${quarter}:${success}`) ?? { quarter, success, count: 0 };
      entry.count += 1;
      counts.set(`${quarter}:${success}`, entry);
    }
    return [...counts.values()];
  }

  async topFailures(since: Date, by: 'reason' | 'ip', limit: number): Promise<{ value: string; count: number }[]> {
    const counts = new Map<string, number>();
    for (const r of this.rows) {
      if (r.loginTime.getTime() < since.getTime() || r.status === LoginStatus.SUCCESS || PROOFS.includes(r.loginType))
        continue;
      const value = by === 'ip' ? r.ip : (r.failureCode ?? r.status);
      counts.set(value, (counts.get(value) ?? 0) + 1);
    }
    return [...counts]
      .map(([value, count]) => ({ value, count }))
      .sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : 1))
      .slice(0, limit);
  }

  async countFailuresSince(userId: string, since: Date): Promise<number> {
    return this.rows.filter(
      (r) =>
        r.userId === userId &&
        (r.status === LoginStatus.PASSWRONG || r.status === LoginStatus.MFAWRONG) &&
        r.loginTime.getTime() >= since.getTime(),
    ).length;
  }

  async countFailuresSinceEach(windows: { userId: string; since: Date }[]): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    for (const { userId, since } of windows) {
      const n = await this.countFailuresSince(userId, since);
      if (n) counts.set(userId, n);
    }
    return counts;
  }

  async recentSuccessIps(userId: string, count: number): Promise<string[]> {
    return this.newestFirst(this.rows.filter((r) => r.userId === userId && r.status === LoginStatus.SUCCESS))
      .slice(0, count)
      .map((r) => r.ip);
  }

  async page(filter: LoginLogFilter, pageNum: number, pageSize: number): Promise<[LoginLogEntity[], number]> {
    const matching = this.matching(filter);
    return [matching.slice((pageNum - 1) * pageSize, pageNum * pageSize).map((r) => ({ ...r })), matching.length];
  }

  async slice(filter: LoginLogFilter, cursor: LoginLogCursor | null, size: number): Promise<LoginLogEntity[]> {
    return this.matching(filter)
      .filter(
        (r) =>
          !cursor ||
          r.loginTime < cursor.loginTime ||
          (r.loginTime.getTime() === cursor.loginTime.getTime() && Number(r.id) < Number(cursor.id)),
      )
      .slice(0, size)
      .map((r) => ({ ...r }));
  }

  private matching(filter: LoginLogFilter): LoginLogEntity[] {
    return this.newestFirst(
      this.rows.filter(
        (r) =>
          // Account and ip are prefixes (LIKE is case-insensitive for ASCII on both databases).
          (!filter.account || r.account.toLowerCase().startsWith(filter.account.toLowerCase())) &&
          (!filter.status || r.status === filter.status) &&
          (!filter.loginType || r.loginType === filter.loginType) &&
          (!filter.ip || r.ip.startsWith(filter.ip)) &&
          (!filter.from || r.loginTime >= filter.from) &&
          (!filter.to || r.loginTime <= filter.to),
      ),
    );
  }

  /** The statuses written, oldest first. */
  statuses(): LoginStatus[] {
    return this.rows.map((r) => r.status);
  }

  private newestFirst(rows: LoginLogEntity[]): LoginLogEntity[] {
    return [...rows].sort((a, b) => b.loginTime.getTime() - a.loginTime.getTime() || Number(b.id) - Number(a.id));
  }
}

export interface InMemoryRepositories {
  users: InMemoryUserRepository;
  roles: InMemoryRoleRepository;
  loginLogs: InMemoryLoginLogRepository;
  /** For Test.createTestingModule: each real repository class bound to its in-memory stand-in. */
  providers: Provider[];
}

/** One set of empty tables and the repositories over them. */
export function inMemoryRepositories(): InMemoryRepositories {
  const tables: Tables = { users: new Map(), identifiers: new Map(), roles: new Map(), userRoles: [] };
  const users = new InMemoryUserRepository(tables);
  const roles = new InMemoryRoleRepository(tables);
  const loginLogs = new InMemoryLoginLogRepository();
  return {
    users,
    roles,
    loginLogs,
    providers: [
      { provide: UserRepository, useValue: users },
      { provide: RoleRepository, useValue: roles },
      { provide: LoginLogRepository, useValue: loginLogs },
    ],
  };
}
