import { EventEmitter2 } from '@nestjs/event-emitter';
import { Test } from '@nestjs/testing';

import { codeOf } from '../../test/support/code-of';
import { FakeClock } from '../../test/support/fake-clock';
import { InMemoryRepositories, inMemoryRepositories } from '../../test/support/in-memory';
import { AuditEntry, AuditLogService } from '../audit/audit-log.service';
import type { Actor } from '../common/auth-context';
import { Clock } from '../common/clock';
import { ErrorCode } from '../common/error-code';
import { AppConfig, loadConfig } from '../config/app-config';
import { SessionService } from '../session/session.service';
import { KeyedMutex } from '../store/keyed-mutex';
import { KvStore } from '../store/kv.store';
import { MemoryKvStore } from '../store/memory-kv.store';
import { StrategyService } from '../strategy/strategy.service';
import { LoginStrategy } from '../strategy/strategy.types';
import { AccountLockedEvent } from './account.events';
import { AccountStateService } from './account-state.service';
import { AdminModeRules } from './admin-mode';
import { RoleService } from './role.service';
import { SelfProtection } from './self-protection';
import { TargetAccess } from './target-access';
import { UserEntity } from './user.entity';
import { UserLookup } from './user-lookup.service';

describe('AccountStateService.changeState (lock, unlock, disable, enable of one or many users)', () => {
  let clock: FakeClock;
  let store: MemoryKvStore;
  let repos: InMemoryRepositories;
  let states: AccountStateService;
  let sessions: SessionService;
  let audited: AuditEntry[];
  let locks: AccountLockedEvent[];
  const operator: Actor = { id: 'op', name: 'operator', ip: '10.0.0.9', codes: ['*'] } as Actor;

  const addUser = (id: string, over: Partial<UserEntity> = {}, roles = ['viewer']): UserEntity =>
    repos.users.add(
      {
        id,
        username: `user-${id}`,
        name: id,
        mobile: null,
        email: null,
        password: 'hash:x',
        passwordUpdateTime: null,
        createTime: clock.now(),
        locked: false,
        unlockTime: null,
        disabled: false,
        failureResetTime: null,
        lastLoginTime: null,
        ...over,
      },
      roles,
    );
  const row = (id: string) => repos.users.rows.get(id)!;
  const actions = () => audited.map((e) => `${e.action}:${e.targetId}`);

  beforeEach(async () => {
    clock = new FakeClock(new Date('2025-06-01T00:00:00Z'));
    store = new MemoryKvStore(clock);
    repos = inMemoryRepositories();
    await repos.roles.save({ code: 'viewer', name: 'Viewer', permissions: ['sys:user:list'] } as never);
    await repos.roles.save({ code: 'root', name: 'Root', permissions: ['*'] } as never);
    audited = [];
    locks = [];
    const events = new EventEmitter2();
    events.on(AccountLockedEvent.NAME, (e: AccountLockedEvent) => locks.push(e));
    const strategy = { loginStrategy: async () => Object.assign(new LoginStrategy(), { lockMinutes: 60 }) };
    const moduleRef = await Test.createTestingModule({
      providers: [
        AccountStateService,
        UserLookup,
        RoleService,
        AdminModeRules,
        SelfProtection,
        TargetAccess,
        SessionService,
        { provide: AppConfig, useValue: loadConfig({}) },
        KeyedMutex,
        ...repos.providers,
        { provide: StrategyService, useValue: strategy },
        { provide: KvStore, useValue: store },
        { provide: Clock, useValue: clock },
        { provide: EventEmitter2, useValue: events },
        {
          provide: AuditLogService,
          useValue: {
            recordDone: async (action: AuditEntry['action'], e: object | (() => Promise<object>)) => {
              audited.push({ action, ...(typeof e === 'function' ? await e() : e) } as AuditEntry);
            },
          },
        },
      ],
    }).compile();
    states = moduleRef.get(AccountStateService);
    sessions = moduleRef.get(SessionService);
    addUser('op', {}, ['root']);
    addUser('root2', {}, ['root']);
  });

  afterEach(() => store.close());

  it('locks every user given for lockMinutes, ends their sessions, and audits and counts each lock', async () => {
    addUser('a');
    addUser('b');
    const { tokenHash } = await sessions.issue({
      userId: 'a',
      username: 'user-a',
      profile: {},
      temp: false,
      ip: '1.1.1.1',
      permissions: [],
    } as never);
    await states.changeState(['a', 'b'], 'lock', operator);
    expect([row('a').locked, row('b').locked]).toEqual([true, true]);
    expect(row('a').unlockTime).toEqual(new Date(clock.nowMs() + 60 * 60_000));
    expect(await sessions.byTokenId(tokenHash)).toBeNull();
    expect(actions()).toEqual(['user.lock:a', 'user.lock:b']);
    expect(audited[0].detail).toEqual({
      username: 'user-a',
      old: { locked: false, unlockTime: null },
      new: { locked: true, unlockTime: row('a').unlockTime },
    });
    expect(locks.map((e) => e.userId)).toEqual(['a', 'b']);
  });

  it('changes nobody when one of the users is missing (NOT_FOUND) or is the caller (FORBIDDEN): all or nothing', async () => {
    addUser('a');
    expect(await codeOf(states.changeState(['a', 'nobody'], 'disable', operator))).toBe(ErrorCode.NOT_FOUND);
    expect(await codeOf(states.changeState(['a', 'op'], 'disable', operator))).toBe(ErrorCode.FORBIDDEN);
    expect(row('a').disabled).toBe(false);
    expect(audited.filter((e) => e.action === 'user.disable')).toEqual([]);
  });

  it('refuses to lock or disable the last usable holders of * together', async () => {
    expect(await codeOf(states.changeState(['root2'], 'disable', 'service'))).toBe('ok');
    expect(await codeOf(states.changeState(['op'], 'lock', 'service'))).toBe(ErrorCode.FORBIDDEN);
    expect(row('op').locked).toBe(false);
  });

  it('refuses an administrator who lacks a code of any target, before anything changes', async () => {
    addUser('a');
    const narrow = { ...operator, id: 'a', codes: ['sys:user:lock'] } as Actor;
    expect(await codeOf(states.changeState(['root2'], 'lock', narrow))).toBe(ErrorCode.FORBIDDEN);
    expect(row('root2').locked).toBe(false);
  });

  it('unlocks and enables only the users in that state: the others keep their failure count, unaudited', async () => {
    addUser('locked', { locked: true, unlockTime: new Date(clock.nowMs() + 60_000) });
    addUser('free');
    addUser('off', { disabled: true });
    await states.changeState(['locked', 'free'], 'unlock', operator);
    await states.changeState(['off', 'free'], 'enable', operator);
    expect(row('locked')).toMatchObject({ locked: false, unlockTime: null, failureResetTime: clock.now() });
    expect(row('off')).toMatchObject({ disabled: false, failureResetTime: clock.now() });
    expect(row('free').failureResetTime).toBeNull();
    expect(actions()).toEqual(['user.unlock:locked', 'user.enable:off']);
    expect(audited[1].detail).toEqual({ username: 'user-off', old: { disabled: true }, new: { disabled: false } });
  });

  it('acts for the service without an audit row when given no actor or only an id', async () => {
    addUser('a');
    await states.changeState(['a'], 'disable', 'op');
    await states.changeState(['a'], 'enable');
    expect(row('a').disabled).toBe(false);
    expect(audited).toEqual([]);
  });
});
