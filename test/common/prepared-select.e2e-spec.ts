import { DataSource } from 'typeorm';

import { PreparedSelect } from '../../src/common/prepared-select';
import { dataSourceOptions, initializeDataSource } from '../../src/database/data-source-options';
import { LoginLogEntity, LoginStatus, LoginTypes } from '../../src/login-log/login-log.entity';
import { UserEntity } from '../../src/user-account/user.entity';
import { UserIdentifierEntity } from '../../src/user-account/user-identifier.entity';
import { BACKENDS, Provisioned } from '../support/backends';

const T0 = new Date('2025-06-01T00:00:00.000Z');
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);

/*
 * A PreparedSelect answers what its query builder's getMany answers, run after run with other
 * values: the same entities, column types (dates, booleans, ids) and filters (deleted rows).
 */
describe.each(BACKENDS)('PreparedSelect on $name', (backend) => {
  let provisioned: Provisioned;
  let dataSource: DataSource;
  beforeAll(async () => {
    provisioned = await backend.provision();
    dataSource = await initializeDataSource(dataSourceOptions(provisioned.env.DATABASE_URL));
    const users = dataSource.getRepository(UserEntity);
    for (const [i, id] of ['p1', 'p2', 'p3'].entries()) {
      await users.insert({
        id,
        username: `prep${i}`,
        name: `用户${i}`,
        mobile: null,
        email: null,
        password: `hash:${i}`,
        passwordUpdateTime: at(i),
        createTime: at(i),
        locked: i === 1,
        disabled: false,
        unlockTime: i === 1 ? at(30) : null,
      });
      await dataSource.getRepository(UserIdentifierEntity).insert({ kind: 'username', value: `prep${i}`, userId: id });
    }
    await users.update({ id: 'p3' }, { deleteTime: at(5) });
    const logs = dataSource.getRepository(LoginLogEntity);
    for (const [i, ip] of ['10.1.0.1', '10.1.0.2', '10.1.0.3', '10.1.0.4'].entries()) {
      await logs.insert({
        userId: 'p1',
        account: 'prep0',
        loginType: LoginTypes.ACCOUNT,
        ip,
        status: i === 2 ? LoginStatus.PASSWRONG : LoginStatus.SUCCESS,
        loginTime: at(10 + i),
      });
    }
  });
  afterAll(async () => {
    await dataSource.destroy();
    await provisioned.dispose();
  });

  it('reads a row with an added column, as getOne does, run after run; a deleted row is not found', async () => {
    const builder = () => dataSource.getRepository(UserEntity).createQueryBuilder('u').addSelect('u.password');
    const prepared = new PreparedSelect(builder().where('u.id = :id'));
    for (const id of ['p1', 'p2', 'p1']) {
      const row = await prepared.one({ id });
      expect(row).toEqual(await builder().where('u.id = :id', { id }).getOne());
      expect(row).toBeInstanceOf(UserEntity);
    }
    expect(await prepared.one({ id: 'p2' })).toMatchObject({ locked: true, unlockTime: at(30), password: 'hash:1' });
    expect(await prepared.one({ id: 'p3' })).toBeNull();
    expect(await prepared.one({ id: 'nobody' })).toBeNull();
  });

  it('spreads a list into IN, whatever its length, through a join that leaves deleted users out', async () => {
    const prepared = new PreparedSelect(
      dataSource
        .getRepository(UserIdentifierEntity)
        .createQueryBuilder('i')
        .innerJoin(UserEntity, 'u', 'u.id = i.user_id AND u.delete_time IS NULL')
        .where('i.value IN (:...values)'),
    );
    const ids = async (values: string[]) => (await prepared.many({ values })).map((r) => r.userId).sort();
    expect(await ids(['prep0'])).toEqual(['p1']);
    expect(await ids(['prep0', 'prep1', 'prep2', 'nobody'])).toEqual(['p1', 'p2']);
    expect(await ids(['nobody'])).toEqual([]);
  });

  it('keeps the order and the limit, and the values the builder was given itself', async () => {
    const prepared = new PreparedSelect(
      dataSource
        .getRepository(LoginLogEntity)
        .createQueryBuilder('l')
        .select(['l.id', 'l.ip'])
        .where('l.user_id = :userId AND l.status = :status', { status: LoginStatus.SUCCESS })
        .orderBy('l.login_time', 'DESC')
        .addOrderBy('l.id', 'DESC')
        .limit(2),
    );
    expect((await prepared.many({ userId: 'p1' })).map((r) => r.ip)).toEqual(['10.1.0.4', '10.1.0.2']);
    // A value given at the run replaces the builder's.
    expect((await prepared.many({ userId: 'p1', status: LoginStatus.PASSWRONG })).map((r) => r.ip)).toEqual([
      '10.1.0.3',
    ]);
    expect(await prepared.many({ userId: 'p2' })).toEqual([]);
  });
});
