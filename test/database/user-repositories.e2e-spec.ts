import { DataSource } from 'typeorm';

import { isUniqueViolation } from '../../src/common/db-errors';
import { dataSourceOptions, initializeDataSource } from '../../src/database/data-source-options';
import { PasswordHistoryEntity } from '../../src/user-account/password-history.entity';
import { RoleEntity, UserRoleEntity } from '../../src/user-account/role.entity';
import { RoleRepository } from '../../src/user-account/role.repository';
import { UserEntity } from '../../src/user-account/user.entity';
import { NewUserRow, UserRepository } from '../../src/user-account/user.repository';
import { identifiersOf } from '../../src/user-account/user-identifier';
import { UserIdentifierEntity } from '../../src/user-account/user-identifier.entity';
import { BACKENDS, Provisioned } from '../support/backends';
import { inMemoryRepositories } from '../support/in-memory';
import { testPiiCipher } from '../support/pii';

type Repos = { users: Pick<UserRepository, keyof UserRepository>; roles: Pick<RoleRepository, keyof RoleRepository> };

/**
 * UserRepository and RoleRepository as the services see them, one suite for the TypeORM classes on
 * both databases and for the in-memory ones the unit specs build on (test/support/in-memory.ts):
 * a unit spec that passes on the in-memory tables then says something about the real ones.
 */
const SETUPS: { name: string; open(): Promise<{ repos: Repos; close(): Promise<void> }> }[] = [
  {
    name: 'in memory',
    async open() {
      const { users, roles } = inMemoryRepositories();
      return { repos: { users, roles }, close: async () => undefined };
    },
  },
  ...BACKENDS.map((backend) => ({
    name: `TypeORM on ${backend.name.split('+')[0]}`,
    async open() {
      const provisioned: Provisioned = await backend.provision();
      const dataSource: DataSource = await initializeDataSource(dataSourceOptions(provisioned.env.DATABASE_URL));
      const repos = {
        users: new UserRepository(
          dataSource.getRepository(UserEntity),
          dataSource.getRepository(UserIdentifierEntity),
          dataSource.getRepository(PasswordHistoryEntity),
          dataSource,
          await testPiiCipher(),
        ),
        roles: new RoleRepository(dataSource.getRepository(RoleEntity), dataSource.getRepository(UserRoleEntity)),
      };
      return {
        repos,
        close: async () => {
          await dataSource.destroy();
          await provisioned.dispose();
        },
      };
    },
  })),
];

const T0 = new Date('2025-06-01T00:00:00.000Z');
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);

describe.each(SETUPS)('user and role repositories: $name', (setup) => {
  let repos: Repos;
  let close: () => Promise<void>;
  beforeEach(async () => {
    ({ repos, close } = await setup.open());
  });
  afterEach(() => close());

  const newUser = (over: Partial<NewUserRow> = {}): NewUserRow => ({
    id: 'u1',
    username: 'ZhangSan',
    name: '张三',
    mobile: '13800138000',
    email: 'ZS@Example.com',
    password: 'hash:1',
    passwordUpdateTime: null,
    createTime: T0,
    locked: false,
    disabled: false,
    ...over,
  });
  const create = async (over: Partial<NewUserRow> = {}, roles: string[] = []) => {
    const user = newUser(over);
    await repos.users.insertWithIdentifiers(user, identifiersOf(user), roles);
    return user;
  };

  it('finds a login by user name or e-mail whatever their case, and by mobile, naming the field', async () => {
    await create();
    expect(await repos.users.findForLogin('zhangsan')).toEqual({ kind: 'username', userId: 'u1' });
    expect(await repos.users.findForLogin('13800138000')).toEqual({ kind: 'mobile', userId: 'u1' });
    expect(await repos.users.findForLogin('zs@EXAMPLE.com')).toEqual({ kind: 'email', userId: 'u1' });
    expect(await repos.users.findForLogin('nobody')).toBeNull();
    expect(await repos.users.findForLogin('zhangsań')).toBeNull();
  });

  it('reads by id without the hash unless asked, by user name in any case, and by several ids', async () => {
    await create();
    await create({ id: 'u2', username: 'lisi', mobile: null, email: null, createTime: at(1) });
    const plain = await repos.users.byId('u1');
    expect(plain).toMatchObject({
      id: 'u1',
      username: 'ZhangSan',
      locked: false,
      disabled: false,
      unlockTime: null,
      failureResetTime: null,
    });
    expect(plain!.password).toBeUndefined();
    expect(await repos.users.withPassword('u1')).toMatchObject({ password: 'hash:1' });
    expect(await repos.users.byId('nope')).toBeNull();
    expect(await repos.users.withPassword('nope')).toBeNull();
    expect((await repos.users.byUsername('ZHANGSAN'))?.id).toBe('u1');
    expect(await repos.users.byUsername('13800138000')).toBeNull(); // a mobile is not a user name
    expect((await repos.users.byIds(['u2', 'u1', 'u2', 'x'])).map((u) => u.id).sort()).toEqual(['u1', 'u2']);
    expect(await repos.users.count()).toBe(2);
  });

  it('refuses an identifier another user holds, as a unique violation, writing nothing of the new user', async () => {
    await create({}, []);
    expect(await repos.users.identifiersTaken(['zs@example.com', 'free'])).toEqual(new Set(['zs@example.com']));
    const clash = newUser({ id: 'u2', username: 'other', mobile: null, email: 'zs@example.com' });
    const err = await repos.users.insertWithIdentifiers(clash, identifiersOf(clash), []).catch((e: unknown) => e);
    expect(isUniqueViolation(err)).toBe(true);
    expect(await repos.users.count()).toBe(1);
    expect(await repos.users.identifiersTaken(['other'])).toEqual(new Set());
  });

  it('pages by creation time, with a keyword matching names in part and a mobile or e-mail whole, % literally', async () => {
    await create({ id: 'a', username: 'alice', mobile: null, email: 'al%ce@x.org', createTime: at(2) });
    await create({ id: 'b', username: 'bob', mobile: null, email: null, name: 'Alicia %', createTime: at(1) });
    await create({ id: 'c', username: 'carol', mobile: null, email: null, createTime: at(3) });
    const ids = ([rows, total]: [UserEntity[], number]) => [rows.map((u) => u.id), total];
    expect(ids(await repos.users.page({}, 1, 2))).toEqual([['b', 'a'], 3]);
    expect(ids(await repos.users.page({}, 2, 2))).toEqual([['c'], 3]);
    expect(ids(await repos.users.page({ keyword: 'ALI' }, 1, 10))).toEqual([['b', 'a'], 2]);
    expect(ids(await repos.users.page({ keyword: 'AL%CE@x.org' }, 1, 10))).toEqual([['a'], 1]);
    expect(ids(await repos.users.page({ keyword: 'l%c' }, 1, 10))).toEqual([[], 0]);
    expect(ids(await repos.users.page({ keyword: '%' }, 1, 10))).toEqual([['b'], 1]);
  });

  it('each change writes its fields and leaves the others', async () => {
    await create();
    const read = async () => (await repos.users.withPassword('u1'))!;
    await repos.users.lock('u1', at(60));
    expect(await read()).toMatchObject({ locked: true, unlockTime: at(60), failureResetTime: null });
    await repos.users.unlock('u1', at(5));
    expect(await read()).toMatchObject({ locked: false, unlockTime: null, failureResetTime: at(5) });
    await repos.users.lock('u1', at(60));
    await repos.users.disable('u1');
    expect(await read()).toMatchObject({ locked: true, disabled: true, unlockTime: null });
    await repos.users.enable('u1', at(6));
    expect(await read()).toMatchObject({ locked: true, disabled: false, unlockTime: null, failureResetTime: at(6) });
    await repos.users.setPassword('u1', 'hash:2', at(7), 0);
    expect(await read()).toMatchObject({ password: 'hash:2', passwordUpdateTime: at(7), failureResetTime: at(6) });
    await repos.users.resetPassword('u1', 'hash:3', at(8), 0);
    expect(await read()).toMatchObject({
      password: 'hash:3',
      passwordUpdateTime: null,
      failureResetTime: at(8),
      locked: true,
    });
    await repos.users.disable('u1');
    await repos.users.recover('u1', 'hash:4', at(9), 0);
    expect(await read()).toMatchObject({
      password: 'hash:4',
      passwordUpdateTime: null,
      failureResetTime: at(9),
      locked: false,
      unlockTime: null,
      disabled: false,
    });
  });

  it('every way of setting a password keeps the replaced hash, pruned to the newest keepPrevious', async () => {
    await create();
    await create({ id: 'u2', username: 'lisi', mobile: null, email: null, password: 'other:1' });
    const previous = () => repos.users.previousPasswords('u1', 24);
    await repos.users.setPassword('u1', 'hash:2', at(1), 0);
    expect(await previous()).toEqual([]);
    await repos.users.setPassword('u1', 'hash:3', at(2), 3);
    await repos.users.resetPassword('u1', 'hash:4', at(3), 3);
    await repos.users.recover('u1', 'hash:5', at(4), 3);
    expect(await previous()).toEqual(['hash:4', 'hash:3', 'hash:2']);
    // Several changes within one millisecond keep their order.
    await repos.users.setPassword('u1', 'hash:6', at(4), 3);
    await repos.users.setPassword('u1', 'hash:7', at(4), 3);
    expect(await previous()).toEqual(['hash:6', 'hash:5', 'hash:4']);
    expect(await repos.users.previousPasswords('u1', 2)).toEqual(['hash:6', 'hash:5']);
    expect(await repos.users.previousPasswords('u1', 0)).toEqual([]);
    // A smaller count prunes at the next change; 0 keeps none at all.
    await repos.users.setPassword('u1', 'hash:8', at(5), 1);
    expect(await previous()).toEqual(['hash:7']);
    await repos.users.setPassword('u2', 'other:2', at(5), 2);
    await repos.users.setPassword('u1', 'hash:9', at(6), 0);
    expect(await previous()).toEqual([]);
    expect((await repos.users.withPassword('u1'))!.password).toBe('hash:9');
    // Another user's history is their own.
    expect(await repos.users.previousPasswords('u2', 24)).toEqual(['other:1']);
  });

  it('roles: written once when absent, listed by code, found ignoring case, overwritten by save', async () => {
    await repos.roles.insertIfAbsent({ code: 'admin', name: 'Admin', permissions: ['*'] });
    await repos.roles.insertIfAbsent({ code: 'admin', name: 'Other', permissions: [] });
    await repos.roles.save({ code: 'auditor', name: 'Auditor', permissions: ['sys:log:list'] });
    // Lower-case codes only: MariaDB orders by its collation, which puts case variants elsewhere.
    expect((await repos.roles.all()).map((r) => [r.code, r.name, r.permissions])).toEqual([
      ['admin', 'Admin', ['*']],
      ['auditor', 'Auditor', ['sys:log:list']],
    ]);
    expect((await repos.roles.byCodeIgnoringCase('AUDITOR')).map((r) => r.code)).toEqual(['auditor']);
    expect(await repos.roles.byCodeIgnoringCase('nope')).toEqual([]);
    await repos.roles.save({ code: 'auditor', name: 'Auditors', permissions: ['a', 'b'] });
    expect(await repos.roles.byCodes(['auditor', 'missing'])).toEqual([
      { code: 'auditor', name: 'Auditors', permissions: ['a', 'b'] },
    ]);
  });

  it('role links: members of a role, roles held by a user, links of users, holders of roles', async () => {
    await repos.roles.save({ code: 'admin', name: 'Admin', permissions: ['*'] });
    await repos.roles.save({ code: 'viewer', name: 'Viewer', permissions: ['sys:user:list'] });
    await create({}, ['admin', 'viewer']);
    await create({ id: 'u2', username: 'lisi', mobile: null, email: null }, ['viewer']);
    await create({ id: 'u3', username: 'wangwu', mobile: null, email: null });
    expect((await repos.roles.memberIds('viewer')).sort()).toEqual(['u1', 'u2']);
    expect((await repos.roles.heldBy('u1')).map((r) => r.code).sort()).toEqual(['admin', 'viewer']);
    expect(await repos.roles.heldBy('u2')).toEqual([
      { code: 'viewer', name: 'Viewer', permissions: ['sys:user:list'] },
    ]);
    expect(await repos.roles.heldBy('u3')).toEqual([]);
    const links = await repos.roles.assignmentsOf(['u2', 'u3']);
    expect(links).toEqual([{ userId: 'u2', roleCode: 'viewer' }]);
    expect((await repos.users.holdingRoles(['admin'])).map((u) => u.id)).toEqual(['u1']);
    expect((await repos.users.holdingRoles(['admin', 'viewer'])).map((u) => u.id).sort()).toEqual(['u1', 'u2']);
  });

  it('dormant users: last login or creation at or before the cutoff, enabled, not re-enabled since, not exempt', async () => {
    await repos.roles.save({ code: 'admin', name: 'Admin', permissions: ['*'] });
    await create({ id: 'u1', createTime: at(0) }); // never logged in, created before the cutoff
    await create({ id: 'u2', username: 'b', mobile: null, email: null, createTime: at(0) });
    await repos.users.recordLogin('u2', at(20)); // logged in after the cutoff
    await create({ id: 'u3', username: 'c', mobile: null, email: null, createTime: at(0) });
    await repos.users.recordLogin('u3', at(10)); // logged in exactly at the cutoff
    await create({ id: 'u4', username: 'd', mobile: null, email: null, createTime: at(0) }, ['admin']);
    await create({ id: 'u5', username: 'e', mobile: null, email: null, createTime: at(0), disabled: true });
    await create({ id: 'u6', username: 'f', mobile: null, email: null, createTime: at(0) });
    await repos.users.enable('u6', at(15)); // enabled again after the cutoff
    await create({ id: 'u7', username: 'g', mobile: null, email: null, createTime: at(11) });
    expect((await repos.users.byId('u3'))!.lastLoginTime).toEqual(at(10));
    expect((await repos.users.byId('u7'))!.lastLoginTime).toBeNull();

    const found = await repos.users.dormantSince(at(10), ['admin'], '', 10);
    expect(found.map((u) => u.id)).toEqual(['u1', 'u3']);
    expect((await repos.users.dormantSince(at(10), ['admin'], 'u1', 1)).map((u) => u.id)).toEqual(['u3']);
    expect((await repos.users.dormantSince(at(10), [], '', 10)).map((u) => u.id)).toEqual(['u1', 'u3', 'u4']);

    expect(await repos.users.disableIfDormant('u2', at(10))).toBe(false);
    expect(await repos.users.disableIfDormant('u5', at(10))).toBe(false);
    expect(await repos.users.disableIfDormant('u1', at(10))).toBe(true);
    expect(await repos.users.disableIfDormant('u1', at(10))).toBe(false);
    expect((await repos.users.byId('u1'))!.disabled).toBeTruthy();
    expect((await repos.users.dormantSince(at(10), ['admin'], '', 10)).map((u) => u.id)).toEqual(['u3']);
  });
});
