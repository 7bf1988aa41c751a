import { EventEmitter2 } from '@nestjs/event-emitter';
import { Test } from '@nestjs/testing';

import { codeOf } from '../../test/support/code-of';
import { FakeClock } from '../../test/support/fake-clock';
import { Clock } from '../common/clock';
import { ErrorCode } from '../common/error-code';
import { Keys } from '../store/keys';
import { KvStore } from '../store/kv.store';
import { MemoryKvStore } from '../store/memory-kv.store';
import { StrategyService } from '../strategy/strategy.service';
import { LoginStrategy } from '../strategy/strategy.types';
import { SessionEndedEvent } from './session.events';
import { freshUntil, hashToken, IssueOptions, SessionService } from './session.service';

const MINUTE = 60_000;

/** A MemoryKvStore that runs a hook just before a compare-and-set, to land a write in between. */
class RacingKvStore extends MemoryKvStore {
  beforeReplace?: () => Promise<void>;
  override async replaceIfEquals(key: string, expected: string, value: string) {
    const hook = this.beforeReplace;
    this.beforeReplace = undefined;
    if (hook) await hook();
    return super.replaceIfEquals(key, expected, value);
  }
}

describe('SessionService', () => {
  let clock: FakeClock;
  let store: RacingKvStore;
  let settings: LoginStrategy;
  let sessions: SessionService;
  let events: EventEmitter2;
  let ended: SessionEndedEvent[];

  const options = (over: Partial<IssueOptions> = {}): IssueOptions => ({
    userId: 'u1',
    username: 'alice',
    profile: { name: 'Alice', mobile: null, email: null },
    temp: false,
    ip: '10.0.0.1',
    permissions: ['sys:user:list'],
    ...over,
  });

  beforeEach(async () => {
    clock = new FakeClock(new Date('2025-01-01T00:00:00Z'));
    store = new RacingKvStore(clock);
    settings = Object.assign(new LoginStrategy(), { sessionExpireMinutes: 30, tempSessionExpireMinutes: 5 });
    events = new EventEmitter2();
    ended = [];
    events.on(SessionEndedEvent.NAME, (e: SessionEndedEvent) => ended.push(e));
    const moduleRef = await Test.createTestingModule({
      providers: [
        SessionService,
        { provide: KvStore, useValue: store },
        { provide: Clock, useValue: clock },
        { provide: StrategyService, useValue: { loginStrategy: async () => settings } },
        { provide: EventEmitter2, useValue: events },
      ],
    }).compile();
    sessions = moduleRef.get(SessionService);
  });

  afterEach(() => store.close());

  describe('issue / resolve', () => {
    it('issues an opaque ≥256-bit token whose session resolves, storing only its SHA-256', async () => {
      const { token, tokenHash, session } = await sessions.issue(options({ browser: 'Chrome', os: 'Linux' }));
      expect(Buffer.from(token, 'base64url').length).toBeGreaterThanOrEqual(32);
      expect(tokenHash).toBe(hashToken(token));
      expect(tokenHash).toMatch(/^[0-9a-f]{64}$/);
      expect(session).toMatchObject({
        userId: 'u1',
        temp: 0,
        kickout: 0,
        ip: '10.0.0.1',
        loginTime: clock.nowMs(),
        expireAt: clock.nowMs() + 30 * MINUTE,
      });
      expect(await store.get(Keys.token(token))).toBeNull();
      expect(JSON.parse((await store.get(Keys.token(tokenHash)))!)).toEqual(session);
      expect(await store.ttl(Keys.token(tokenHash))).toBe(30 * MINUTE);

      const resolved = await sessions.resolve(token);
      expect(resolved).toEqual({ tokenHash, session, permissions: ['sys:user:list'] });
      expect(await sessions.permissions(tokenHash)).toEqual(['sys:user:list']);
    });

    it('reads a live session and its permission codes in one round trip', async () => {
      const { token } = await sessions.issue(options());
      const reads = [jest.spyOn(store, 'get'), jest.spyOn(store, 'mget')];
      await sessions.resolve(token);
      expect(reads.map((spy) => spy.mock.calls.length)).toEqual([0, 1]);
    });

    it('a request after a change sees it at once, whatever wrote it (the last parse is reused only for the same stored text)', async () => {
      const { token, tokenHash, session } = await sessions.issue(options());
      expect((await sessions.resolve(token)).permissions).toEqual(['sys:user:list']);
      await sessions.refreshPermissions('u1', ['sys:user:list', 'sys:role:list']);
      expect((await sessions.resolve(token)).permissions).toEqual(['sys:user:list', 'sys:role:list']);
      await sessions.updateProfile('u1', { email: 'alice@example.com' });
      expect((await sessions.resolve(token)).session.profile?.email).toBe('alice@example.com');
      // Written straight into the store, as another instance would.
      await store.replaceKeepTtl(Keys.token(tokenHash), JSON.stringify({ ...session, ip: '10.0.0.9' }));
      expect((await sessions.resolve(token)).session.ip).toBe('10.0.0.9');
      await store.replaceKeepTtl(Keys.perms(tokenHash), JSON.stringify([]));
      expect((await sessions.resolve(token)).permissions).toEqual([]);
      await sessions.kickOutOthers('u1', null);
      expect(await codeOf(sessions.resolve(token))).toBe(ErrorCode.KICKED_OUT);
      expect(await codeOf(sessions.resolve(token))).toBe(ErrorCode.NOT_LOGGED_IN);
    });

    it('the session and codes handed to one request cannot be changed under the next one (they are shared)', async () => {
      const { token } = await sessions.issue(options());
      const first = await sessions.resolve(token);
      expect(() => {
        first.permissions.push('*');
      }).toThrow(TypeError);
      expect(() => {
        first.session.userId = 'u2';
      }).toThrow(TypeError);
      expect(() => {
        first.session.profile!.name = 'Mallory';
      }).toThrow(TypeError);
      const second = await sessions.resolve(token);
      expect(second.permissions).toEqual(['sys:user:list']);
      expect(second.session).toMatchObject({ userId: 'u1', profile: { name: 'Alice' } });
    });

    it('two logins get different tokens', async () => {
      const a = await sessions.issue(options());
      const b = await sessions.issue(options());
      expect(a.token).not.toBe(b.token);
    });

    it('a temporary token lives tempSessionExpireMinutes', async () => {
      const { session } = await sessions.issue(options({ temp: true }));
      expect(session.temp).toBe(1);
      expect(session.expireAt).toBe(clock.nowMs() + 5 * MINUTE);
    });

    it('an unknown token answers NOT_LOGGED_IN', async () => {
      expect(await codeOf(sessions.resolve('no-such-token'))).toBe(ErrorCode.NOT_LOGGED_IN);
    });

    it('a token answers until its validity ends, then NOT_LOGGED_IN', async () => {
      const { token } = await sessions.issue(options());
      clock.advance(30 * MINUTE - 1);
      expect(await codeOf(sessions.resolve(token))).toBe('ok');
      clock.advance(1);
      expect(await codeOf(sessions.resolve(token))).toBe(ErrorCode.NOT_LOGGED_IN);
    });

    it('a stored session past expireAt is refused even when the store still holds it', async () => {
      const { token, tokenHash, session } = await sessions.issue(options());
      // The store's TTL and the session's expireAt disagree (e.g. a TTL reset by hand): expireAt decides.
      await store.set(Keys.token(tokenHash), JSON.stringify({ ...session, expireAt: clock.nowMs() - 1 }));
      expect(await codeOf(sessions.resolve(token))).toBe(ErrorCode.NOT_LOGGED_IN);
      expect(await store.get(Keys.token(tokenHash))).toBeNull();
      expect(await sessions.sessionsOf('u1')).toEqual([]);
    });
  });

  describe('kick-out', () => {
    it('a kicked-out token answers KICKED_OUT exactly once, then NOT_LOGGED_IN', async () => {
      const old = await sessions.issue(options());
      const current = await sessions.issue(options());
      await sessions.kickOutOthers('u1', current.tokenHash);

      expect(await codeOf(sessions.resolve(old.token))).toBe(ErrorCode.KICKED_OUT);
      expect(await codeOf(sessions.resolve(old.token))).toBe(ErrorCode.NOT_LOGGED_IN);
      expect(await sessions.permissions(old.tokenHash)).toEqual([]);
      expect(await codeOf(sessions.resolve(current.token))).toBe('ok');
      expect((await sessions.sessionsOf('u1')).map((s) => s.tokenHash)).toEqual([current.tokenHash]);
    });

    it('with 10 parallel requests on a kicked-out token exactly one answers KICKED_OUT', async () => {
      const { token } = await sessions.issue(options());
      await sessions.kickOutOthers('u1', null);
      const codes = await Promise.all(Array.from({ length: 10 }, () => codeOf(sessions.resolve(token))));
      expect(codes.filter((c) => c === ErrorCode.KICKED_OUT)).toHaveLength(1);
      expect(codes.filter((c) => c === ErrorCode.NOT_LOGGED_IN)).toHaveLength(9);
    });

    it('announces each session a newer login replaces, once, and nothing for a plain end', async () => {
      const old = await sessions.issue(options({ ip: '10.0.0.7' }));
      const current = await sessions.issue(options());
      await sessions.kickOutOthers('u1', current.tokenHash);
      await sessions.kickOutOthers('u1', current.tokenHash);
      expect(ended).toEqual([
        new SessionEndedEvent(
          { userId: 'u1', username: 'alice', ip: '10.0.0.7', loginTime: old.session.loginTime },
          'replaced',
          null,
          clock.now(),
        ),
      ]);
      await sessions.end(current.tokenHash, 'u1');
      expect(ended).toHaveLength(1);
      const last = await sessions.issue(options());
      await sessions.end(last.tokenHash, 'u1', {
        reason: 'kickout',
        session: last.session,
        by: { id: 'a1', name: 'admin' },
      });
      expect(ended[1]).toMatchObject({ reason: 'kickout', by: { id: 'a1', name: 'admin' }, session: { userId: 'u1' } });
    });

    it('a kick-out keeps the session’s remaining validity', async () => {
      const { tokenHash } = await sessions.issue(options());
      clock.advance(10 * MINUTE);
      await sessions.kickOutOthers('u1', null);
      expect(await store.ttl(Keys.token(tokenHash))).toBe(20 * MINUTE);
    });
  });

  describe('renewal', () => {
    it('is not due while half the validity or more is left', async () => {
      const { token } = await sessions.issue(options());
      clock.advance(15 * MINUTE); // exactly 50% left
      const { tokenHash, session } = await sessions.resolve(token);
      const after = await sessions.renewIfDue(tokenHash, session);
      expect(after.expireAt).toBe(session.expireAt);
      expect(after.renewedAt).toBeNull();
      expect(await store.ttl(Keys.token(tokenHash))).toBe(15 * MINUTE);
    });

    it('under half left: renewed to the full validity, with both TTLs reset', async () => {
      const { token } = await sessions.issue(options());
      clock.advance(15 * MINUTE + 1);
      const { tokenHash, session } = await sessions.resolve(token);
      const renewed = await sessions.renewIfDue(tokenHash, session);
      expect(renewed.expireAt).toBe(clock.nowMs() + 30 * MINUTE);
      expect(renewed.renewedAt).toBe(clock.nowMs());
      expect(await store.ttl(Keys.token(tokenHash))).toBe(30 * MINUTE);
      expect(await store.ttl(Keys.perms(tokenHash))).toBe(30 * MINUTE);

      // Without the renewal it would have expired 15 minutes from the first login + 30.
      clock.advance(30 * MINUTE - 1);
      expect(await codeOf(sessions.resolve(token))).toBe('ok');
      expect(await sessions.permissions(tokenHash)).toEqual(['sys:user:list']);
      clock.advance(1);
      expect(await codeOf(sessions.resolve(token))).toBe(ErrorCode.NOT_LOGGED_IN);
    });

    it('follows the validity configured now', async () => {
      const { token } = await sessions.issue(options());
      settings.sessionExpireMinutes = 60;
      clock.advance(10 * MINUTE); // 20 of 60 minutes left
      const { tokenHash, session } = await sessions.resolve(token);
      const renewed = await sessions.renewIfDue(tokenHash, session);
      expect(renewed.expireAt).toBe(clock.nowMs() + 60 * MINUTE);
    });

    it('never renews a temporary token', async () => {
      const { token } = await sessions.issue(options({ temp: true }));
      clock.advance(4 * MINUTE);
      const { tokenHash, session } = await sessions.resolve(token);
      const after = await sessions.renewIfDue(tokenHash, session);
      expect(after.expireAt).toBe(session.expireAt);
      expect(await store.ttl(Keys.token(tokenHash))).toBe(1 * MINUTE);
      clock.advance(1 * MINUTE);
      expect(await codeOf(sessions.resolve(token))).toBe(ErrorCode.NOT_LOGGED_IN);
    });

    it('does not revive a session kicked out after the request resolved it', async () => {
      const { token } = await sessions.issue(options());
      clock.advance(20 * MINUTE);
      const { tokenHash, session } = await sessions.resolve(token);
      await sessions.kickOutOthers('u1', null);
      const after = await sessions.renewIfDue(tokenHash, session);
      expect(after.kickout).toBe(1);
      expect(await codeOf(sessions.resolve(token))).toBe(ErrorCode.KICKED_OUT);
    });

    it('does not revive a session kicked out between its read and its write', async () => {
      const { token } = await sessions.issue(options());
      clock.advance(20 * MINUTE);
      const { tokenHash, session } = await sessions.resolve(token);
      store.beforeReplace = () => sessions.kickOutOthers('u1', null);
      await sessions.renewIfDue(tokenHash, session);
      expect(JSON.parse((await store.get(Keys.token(tokenHash)))!).kickout).toBe(1);
      expect(await codeOf(sessions.resolve(token))).toBe(ErrorCode.KICKED_OUT);
    });

    it('does not resurrect a session ended after the request resolved it', async () => {
      const { token } = await sessions.issue(options());
      clock.advance(20 * MINUTE);
      const { tokenHash, session } = await sessions.resolve(token);
      await sessions.end(tokenHash, 'u1');
      await sessions.renewIfDue(tokenHash, session);
      expect(await store.get(Keys.token(tokenHash))).toBeNull();
      expect(await store.get(Keys.perms(tokenHash))).toBeNull();
      expect(await codeOf(sessions.resolve(token))).toBe(ErrorCode.NOT_LOGGED_IN);
    });

    it('does not resurrect a session ended between its read and its write', async () => {
      const { token } = await sessions.issue(options());
      clock.advance(20 * MINUTE);
      const { tokenHash, session } = await sessions.resolve(token);
      store.beforeReplace = () => sessions.end(tokenHash, 'u1');
      await sessions.renewIfDue(tokenHash, session);
      expect(await store.get(Keys.token(tokenHash))).toBeNull();
      expect(await codeOf(sessions.resolve(token))).toBe(ErrorCode.NOT_LOGGED_IN);
    });
  });

  describe('sessionsOf / end / endAll', () => {
    it('lists the live sessions of one user only', async () => {
      const a = await sessions.issue(options({ ip: '10.0.0.1' }));
      const b = await sessions.issue(options({ ip: '10.0.0.2' }));
      await sessions.issue(options({ userId: 'u2' }));
      const listed = await sessions.sessionsOf('u1');
      expect(listed.map((s) => s.tokenHash).sort()).toEqual([a.tokenHash, b.tokenHash].sort());
      expect(listed.map((s) => s.session.ip).sort()).toEqual(['10.0.0.1', '10.0.0.2']);
      expect(await sessions.sessionsOf('nobody')).toEqual([]);
    });

    it('drops expired sessions from the list and from the user’s token set', async () => {
      const temp = await sessions.issue(options({ temp: true }));
      const normal = await sessions.issue(options());
      clock.advance(5 * MINUTE);
      expect((await sessions.sessionsOf('u1')).map((s) => s.tokenHash)).toEqual([normal.tokenHash]);
      expect(await store.sMembers(Keys.userTokens('u1'))).toEqual([normal.tokenHash]);
      expect(temp.tokenHash).not.toBe(normal.tokenHash);
    });

    it('end(tokenId) ends exactly that session: its token answers NOT_LOGGED_IN, the others live', async () => {
      const a = await sessions.issue(options());
      const b = await sessions.issue(options());
      await sessions.end(a.tokenHash, 'u1');
      expect(await codeOf(sessions.resolve(a.token))).toBe(ErrorCode.NOT_LOGGED_IN);
      expect(await sessions.permissions(a.tokenHash)).toEqual([]);
      expect(await codeOf(sessions.resolve(b.token))).toBe('ok');
      expect((await sessions.sessionsOf('u1')).map((s) => s.tokenHash)).toEqual([b.tokenHash]);
      expect(await sessions.byTokenId(a.tokenHash)).toBeNull();
      expect(await sessions.byTokenId(b.tokenHash)).toMatchObject({ userId: 'u1' });
    });

    it('byTokenId does not accept the token itself', async () => {
      const { token } = await sessions.issue(options());
      expect(await sessions.byTokenId(token)).toBeNull();
    });

    it('endAll ends every session of the user except the one kept', async () => {
      const a = await sessions.issue(options());
      const b = await sessions.issue(options());
      const other = await sessions.issue(options({ userId: 'u2' }));
      await sessions.endAll('u1', b.tokenHash);
      expect(await codeOf(sessions.resolve(a.token))).toBe(ErrorCode.NOT_LOGGED_IN);
      expect(await codeOf(sessions.resolve(b.token))).toBe('ok');
      await sessions.endAll('u1');
      expect(await codeOf(sessions.resolve(b.token))).toBe(ErrorCode.NOT_LOGGED_IN);
      expect(await codeOf(sessions.resolve(other.token))).toBe('ok');
    });

    it('allSessions lists every user’s live sessions, newest first', async () => {
      const first = await sessions.issue(options());
      clock.advance(1000);
      const second = await sessions.issue(options({ userId: 'u2' }));
      expect((await sessions.allSessions()).map((s) => s.tokenHash)).toEqual([second.tokenHash, first.tokenHash]);
    });
  });

  describe('session limits (sessionMaxHours, maxSessionsPerUser)', () => {
    const HOUR = 60 * MINUTE;

    it('sessionMaxHours: renewals stop at loginTime + max, without a store read once there; the session then ends', async () => {
      settings.sessionMaxHours = 1;
      const t0 = clock.nowMs();
      const { token, tokenHash } = await sessions.issue(options());
      let session = (await sessions.resolve(token)).session;
      for (const [advance, expireAt] of [
        [20, 50],
        [20, 60],
        [15, 60],
      ] as const) {
        clock.advance(advance * MINUTE);
        session = await sessions.renewIfDue(tokenHash, (await sessions.resolve(token)).session);
        expect(session.expireAt).toBe(t0 + expireAt * MINUTE);
      }
      expect(await store.ttl(Keys.token(tokenHash))).toBe(5 * MINUTE);
      const reads = jest.spyOn(store, 'get');
      await sessions.renewIfDue(tokenHash, session);
      expect(reads).not.toHaveBeenCalled();
      clock.advance(5 * MINUTE);
      expect(await codeOf(sessions.resolve(token))).toBe(ErrorCode.NOT_LOGGED_IN);
      expect(await sessions.sessionsOf('u1')).toEqual([]);
    });

    it('sessionMaxHours caps a temporary token at issue; 0 leaves validity alone', async () => {
      settings.tempSessionExpireMinutes = 1440;
      settings.sessionMaxHours = 2;
      expect((await sessions.issue(options({ temp: true }))).session.expireAt).toBe(clock.nowMs() + 2 * HOUR);
      settings.sessionMaxHours = 0;
      expect((await sessions.issue(options({ temp: true }))).session.expireAt).toBe(clock.nowMs() + 1440 * MINUTE);
    });

    it('a session past a lowered limit is not live, yet still gets a role change: a raised limit may revive it', async () => {
      const { token, tokenHash } = await sessions.issue(options());
      for (let i = 0; i < 6; i++) {
        clock.advance(20 * MINUTE);
        await sessions.renewIfDue(tokenHash, (await sessions.resolve(token)).session);
      }
      settings.sessionMaxHours = 1;
      expect(await sessions.sessionsOf('u1')).toEqual([]);
      expect(await sessions.allSessions()).toEqual([]);
      await sessions.refreshPermissions('u1', ['sys:role:list']);
      settings.sessionMaxHours = 3;
      expect((await sessions.resolve(token)).permissions).toEqual(['sys:role:list']);
      expect((await sessions.allSessions()).map((s) => s.tokenHash)).toEqual([tokenHash]);
    });

    it('kickOutOldest keeps the newest max − 1 live sessions unmarked, oldest marked first; kicked ones do not count', async () => {
      const issued: { tokenHash: string }[] = [];
      for (let i = 0; i < 4; i++) {
        issued.push(await sessions.issue(options()));
        clock.advance(MINUTE);
      }
      await sessions.kickOutOldest('u1', 3);
      const marks = async () =>
        Promise.all(issued.map(async (s) => JSON.parse((await store.get(Keys.token(s.tokenHash)))!).kickout));
      expect(await marks()).toEqual([1, 1, 0, 0]);
      await sessions.kickOutOldest('u1', 3);
      expect(await marks()).toEqual([1, 1, 0, 0]);
      await sessions.kickOutOldest('u1', 1);
      expect(await marks()).toEqual([1, 1, 1, 1]);
    });
  });

  describe('fresh proof', () => {
    const proofOf = async (tokenHash: string) =>
      freshUntil(JSON.parse((await store.get(Keys.token(tokenHash)))!), settings);

    it('a password login is proven at its issue, for reauthMinutes as configured now; other ways are not', async () => {
      const proven = await sessions.issue(options({ freshProof: true }));
      const qr = await sessions.issue(options());
      expect(await proofOf(proven.tokenHash)).toBe(clock.nowMs() + 5 * MINUTE);
      expect(await proofOf(qr.tokenHash)).toBe(0);
      settings.reauthMinutes = 20;
      expect(await proofOf(proven.tokenHash)).toBe(clock.nowMs() + 20 * MINUTE);
    });

    it('markProven stamps the session in the store; renewal and kick-out marks keep the stamp; a gone session is not revived', async () => {
      const { token, tokenHash } = await sessions.issue(options());
      clock.advance(16 * MINUTE);
      expect(await sessions.markProven(tokenHash, clock.nowMs())).toBe(true);
      const at = clock.nowMs();
      await sessions.renewIfDue(tokenHash, (await sessions.resolve(token)).session);
      expect(JSON.parse((await store.get(Keys.token(tokenHash)))!)).toMatchObject({ provenAt: at, renewedAt: at });
      await sessions.kickOutOthers('u1', null);
      expect(JSON.parse((await store.get(Keys.token(tokenHash)))!)).toMatchObject({ provenAt: at, kickout: 1 });
      expect(await sessions.markProven(tokenHash, clock.nowMs())).toBe(false);
      await sessions.end(tokenHash, 'u1');
      expect(await sessions.markProven(tokenHash, clock.nowMs())).toBe(false);
      expect(await store.get(Keys.token(tokenHash))).toBeNull();
    });

    it('the enrolment token of mfaMode 2 counts as proven for its whole life', async () => {
      const { tokenHash } = await sessions.issue(options({ temp: true, freshProof: true, mfaSetup: true }));
      expect(await proofOf(tokenHash)).toBe(Infinity);
    });
  });
});
