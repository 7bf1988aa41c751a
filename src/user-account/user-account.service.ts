import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { Brackets, DataSource, In, Repository } from 'typeorm';
import { AppException, validationFailed } from '../common/app.exception';
import { Clock } from '../common/clock';
import { isUniqueViolation } from '../common/db-errors';
import { ErrorCode } from '../common/error-code';
import { Page } from '../common/paging.dto';
import { AppConfig } from '../config/app-config';
import { SessionService } from '../auth/session/session.service';
import { StrategyService } from '../strategy/strategy.service';
import { LoginTypes } from '../login-log/login-log.entity';
import { KeyedMutex } from '../store/keyed-mutex';
import { Keys } from '../store/keys';
import { ListUsersDto } from './dto/user.dto';
import { PasswordHasher } from './password-hasher';
import { passwordExpiresAt } from './password-expiry';
import { checkPasswordComplexity, generatePassword } from './password-policy';
import { UserRoleEntity } from './role.entity';
import { RoleService } from './role.service';
import { SelfProtection } from './self-protection';
import { UserEntity } from './user.entity';

export interface NewUser {
  username: string;
  name: string;
  mobile?: string | null;
  email?: string | null;
  /** Plain text; absent: generated and returned once. */
  password?: string;
  roles?: string[];
}

export interface UserView {
  id: string;
  username: string;
  name: string;
  mobile: string | null;
  email: string | null;
  locked: boolean;
  unlockTime: Date | null;
  disabled: boolean;
  passwordUpdateTime: Date | null;
  passwordExpireTime: Date | null;
  createTime: Date;
  roles: string[];
}

@Injectable()
export class UserAccountService {
  constructor(
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly roles: RoleService,
    private readonly hasher: PasswordHasher,
    private readonly strategy: StrategyService,
    private readonly sessions: SessionService,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    private readonly mutex: KeyedMutex,
    private readonly protection: SelfProtection,
  ) {}

  /** Contract §5: user name, then mobile, then e-mail; the matching field is the log's login type. */
  async findForLogin(account: string): Promise<{ user: UserEntity; loginType: LoginTypes } | null> {
    const lookups: [keyof UserEntity, LoginTypes][] = [
      ['username', LoginTypes.ACCOUNT], ['mobile', LoginTypes.MOBILE], ['email', LoginTypes.EMAIL],
    ];
    for (const [field, loginType] of lookups) {
      const user = await this.users.createQueryBuilder('u').addSelect('u.password')
        .where(`u.${field} = :account`, { account }).getOne();
      if (user) return { user, loginType };
    }
    return null;
  }

  /** The current row (lock and disable state may have changed since the caller read it). */
  async get(id: string): Promise<UserEntity> {
    const user = await this.users.findOne({ where: { id } });
    if (!user) throw new AppException(ErrorCode.NOT_FOUND);
    return user;
  }

  async withPassword(id: string): Promise<UserEntity> {
    const user = await this.users.createQueryBuilder('u').addSelect('u.password').where('u.id = :id', { id }).getOne();
    if (!user) throw new AppException(ErrorCode.NOT_FOUND);
    return user;
  }

  async create(input: NewUser): Promise<{ id: string; password?: string }> {
    const rules = await this.strategy.passwordRules();
    const generated = input.password === undefined ? generatePassword(rules) : undefined;
    const plain = input.password ?? generated!;
    checkPasswordComplexity(plain, rules);
    const roleCodes = [...new Set(input.roles ?? [])];
    await this.roles.assertExist(roleCodes);
    await this.assertUnique(input);
    const id = randomUUID();
    const hash = await this.hasher.hash(plain);
    try {
      await this.dataSource.transaction(async (tx) => {
        await tx.insert(UserEntity, {
          id,
          username: input.username,
          name: input.name,
          mobile: input.mobile ?? null,
          email: input.email ?? null,
          password: hash,
          // Contract §4: a password set by an administrator is an initial password.
          passwordUpdateTime: null,
          createTime: this.clock.now(),
          locked: false,
          disabled: false,
        });
        if (roleCodes.length) await tx.insert(UserRoleEntity, roleCodes.map((roleCode) => ({ userId: id, roleCode })));
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw this.duplicate();
      throw err;
    }
    return generated ? { id, password: generated } : { id };
  }

  async list(query: ListUsersDto): Promise<Page<UserView>> {
    const qb = this.users.createQueryBuilder('u');
    if (query.keyword) {
      // '!' rather than a backslash as the LIKE escape: MySQL/MariaDB read '\' inside a string literal as an
      // escaped quote (a syntax error), SQLite does not; '!' means the same on both.
      const like = `%${query.keyword.replace(/[!%_]/g, (c) => `!${c}`)}%`;
      qb.where(new Brackets((w) => {
        for (const f of ['username', 'name', 'mobile', 'email']) w.orWhere(`u.${f} LIKE :like ESCAPE '!'`, { like });
      }));
    }
    const [rows, total] = await qb.orderBy('u.create_time', 'ASC').addOrderBy('u.id', 'ASC')
      .skip((query.pageNum - 1) * query.pageSize).take(query.pageSize).getManyAndCount();
    const roles = await this.roles.rolesOf(rows.map((u) => u.id));
    const { passwordExpireDays } = await this.strategy.userStrategy();
    return { total, rows: rows.map((u) => this.view(u, roles.get(u.id) ?? [], passwordExpireDays)) };
  }

  /** Spec 4.5 lock(userId) by an administrator; contract §5 ends the user's sessions, §12 protects the caller and the last `*`. */
  async lock(id: string, actorId: string): Promise<void> {
    this.protection.assertNotSelf(actorId, id);
    await this.get(id);
    await this.protection.keepingSuperAdmin(id, () => this.mutex.run(Keys.loginMutex(id), () => this.lockForFailures(id)));
  }

  /**
   * Spec 4.5 unlock(userId); the failure count starts again (contract §5). Under the account's
   * login mutex like lock: a wrong password being counted right now must not lock the account
   * again with the failures from before this unlock.
   */
  async unlock(id: string): Promise<void> {
    await this.get(id);
    await this.mutex.run(Keys.loginMutex(id), () =>
      this.users.update(id, { locked: false, unlockTime: null, failureResetTime: this.clock.now() }));
  }

  /** Spec 4.5 disable(userId) by an administrator; contract §12 protects the caller and the last `*`. */
  async disable(id: string, actorId: string): Promise<void> {
    this.protection.assertNotSelf(actorId, id);
    await this.get(id);
    await this.protection.keepingSuperAdmin(id, () => this.mutex.run(Keys.loginMutex(id), async () => {
      await this.users.update(id, { disabled: true, unlockTime: null });
      await this.sessions.endAll(id);
    }));
  }

  /** Spec 4.5 enable(userId); the failure count starts again (contract §5), under the login mutex as unlock. */
  async enable(id: string): Promise<void> {
    await this.get(id);
    await this.mutex.run(Keys.loginMutex(id), () =>
      this.users.update(id, { disabled: false, unlockTime: null, failureResetTime: this.clock.now() }));
  }

  /**
   * Spec 4.3 reset: the default password (or a generated one, returned once), password_update_time cleared.
   * Not of one's own account (contract §12): that is /sys/me/pass/update, which asks for the old password.
   */
  async resetPassword(id: string, actorId: string): Promise<{ password: string } | null> {
    this.protection.assertNotSelf(actorId, id);
    await this.get(id);
    // An empty DEFAULT_PASSWORD counts as unset: never store the hash of '' (anyone could log in).
    const generated = this.config.DEFAULT_PASSWORD ? undefined : generatePassword(await this.strategy.passwordRules());
    const hash = await this.hasher.hash(generated ?? this.config.DEFAULT_PASSWORD!);
    await this.mutex.run(Keys.loginMutex(id), async () => {
      await this.users.update(id, { password: hash, passwordUpdateTime: null, failureResetTime: this.clock.now() });
      await this.sessions.endAll(id);
    });
    return generated ? { password: generated } : null;
  }

  /** Spec 4.3 change: old password first, then the complexity check; other sessions end. */
  async changeOwnPassword(userId: string, currentTokenHash: string, oldPass: string, newPass: string): Promise<void> {
    const user = await this.withPassword(userId);
    if (!(await this.hasher.matches(oldPass, user.password))) throw new AppException(ErrorCode.OLD_PASSWORD_WRONG);
    checkPasswordComplexity(newPass, await this.strategy.passwordRules());
    await this.users.update(userId, { password: await this.hasher.hash(newPass), passwordUpdateTime: this.clock.now() });
    await this.sessions.endAll(userId, currentTokenHash);
  }

  /**
   * Spec 3.1 at a login attempt (password or QR): a lock whose unlock time is set and
   * earlier than now ends here (the user object is updated too); true while still locked.
   */
  async stillLocked(user: UserEntity): Promise<boolean> {
    if (!user.locked) return false;
    const now = this.clock.now();
    if (!user.unlockTime || user.unlockTime.getTime() >= now.getTime()) return true;
    await this.users.update(user.id, { locked: false, unlockTime: null, failureResetTime: now });
    Object.assign(user, { locked: false, unlockTime: null, failureResetTime: now });
    return false;
  }

  /** Spec 3.1 / 4.5: locked = true, unlock_time = now + lockMinutes; the caller holds the account's login mutex. */
  async lockForFailures(id: string): Promise<void> {
    const { lockMinutes } = await this.strategy.loginStrategy();
    await this.users.update(id, { locked: true, unlockTime: new Date(this.clock.nowMs() + lockMinutes * 60_000) });
    await this.sessions.endAll(id);
  }

  /** id → user, for lists that show who holds a session. */
  async byIds(ids: string[]): Promise<Map<string, UserEntity>> {
    const unique = [...new Set(ids)];
    if (!unique.length) return new Map();
    const rows = await this.users.find({ where: { id: In(unique) } });
    return new Map(rows.map((u) => [u.id, u]));
  }

  count(): Promise<number> {
    return this.users.count();
  }

  view(u: UserEntity, roles: string[], passwordExpireDays: number): UserView {
    return {
      id: u.id,
      username: u.username,
      name: u.name,
      mobile: u.mobile,
      email: u.email,
      locked: !!u.locked,
      unlockTime: u.unlockTime,
      disabled: !!u.disabled,
      passwordUpdateTime: u.passwordUpdateTime,
      passwordExpireTime: passwordExpiresAt(u, passwordExpireDays),
      createTime: u.createTime,
      roles,
    };
  }

  private async assertUnique(input: NewUser): Promise<void> {
    const clash = await this.users.createQueryBuilder('u')
      .where('u.username = :username', { username: input.username })
      .orWhere('u.mobile = :mobile', { mobile: input.mobile ?? '\u0000' })
      .orWhere('u.email = :email', { email: input.email ?? '\u0000' })
      .getOne();
    if (clash) throw this.duplicate();
  }

  private duplicate() {
    return validationFailed('用户名、手机号或邮箱已存在', 'The user name, mobile or e-mail is already taken');
  }
}
