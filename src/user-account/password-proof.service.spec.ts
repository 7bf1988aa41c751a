import { codeOf } from '../../test/support/code-of';
import { FakeClock } from '../../test/support/fake-clock';
import { AppException } from '../common/app.exception';
import { ErrorCode } from '../common/error-code';
import { KeyedMutex } from '../store/keyed-mutex';
import { Keys } from '../store/keys';
import { MemoryKvStore } from '../store/memory-kv.store';
import { StrategyService } from '../strategy/strategy.service';
import { LoginStrategy } from '../strategy/strategy.types';
import type { AccountStateService } from './account-state.service';
import { CompareSlots } from './compare-slots';
import type { LockoutService } from './lockout.service';
import { PasswordHasher } from './password-hasher';
import { PasswordProof, ProofRefusals } from './password-proof.service';
import type { UserEntity } from './user.entity';
import type { UserLookup } from './user-lookup.service';

const RIGHT = 'Right-pass1';

/** Plain-text "hashes" (`hash:` or, as a new salt would give, `hash2:`); `meanwhile` runs while the next compare is in flight (what happens to the account then). */
class FakeHasher extends PasswordHasher {
  compared: string[] = [];
  burns = 0;
  meanwhile: (() => void) | null = null;
  async hash(plain: string) {
    return `hash:${plain}`;
  }
  async matches(plain: string, hash: string) {
    this.compared.push(hash);
    await new Promise((r) => setImmediate(r));
    const meanwhile = this.meanwhile;
    this.meanwhile = null;
    meanwhile?.();
    return /^hash2?:/.test(hash) && hash.replace(/^hash2?:/, '') === plain;
  }
  async burn() {
    this.burns++;
  }
}

describe('PasswordProof (the one protocol that proves a password)', () => {
  let clock: FakeClock;
  let store: MemoryKvStore;
  let mutex: KeyedMutex;
  let slots: CompareSlots;
  let hasher: FakeHasher;
  let account: UserEntity;
  let proof: PasswordProof;
  /** What the refusals saw, in order. */
  let refused: string[];
  let refusals: ProofRefusals;

  beforeEach(() => {
    clock = new FakeClock(new Date('2025-06-01T00:00:00Z'));
    store = new MemoryKvStore(clock);
    mutex = new KeyedMutex(store);
    slots = new CompareSlots(store);
    hasher = new FakeHasher();
    account = {
      id: 'u1',
      username: 'zhangsan',
      name: '张三',
      mobile: null,
      email: null,
      password: `hash:${RIGHT}`,
      passwordUpdateTime: null,
      createTime: clock.now(),
      locked: false,
      unlockTime: null,
      disabled: false,
      failureResetTime: null,
      lastLoginTime: null,
    };
    // Each read is a copy, as a database row is.
    const lookup = { withPassword: async () => ({ ...account }) } as unknown as UserLookup;
    const states = { stillLocked: async (u: UserEntity) => !!u.locked } as unknown as AccountStateService;
    const lockout = {
      reserveCompare: async (u: UserEntity, inFlight: number) => (inFlight < 5 ? slots.take(u.id) : null),
    } as unknown as LockoutService;
    const strategy = { loginStrategy: async () => new LoginStrategy() } as unknown as StrategyService;
    proof = new PasswordProof(lookup, states, lockout, hasher, mutex, slots, strategy);
    refused = [];
    refusals = {
      locked: async (u) => {
        refused.push(`locked:${u.password}`);
        throw new AppException(ErrorCode.ACCOUNT_LOCKED);
      },
      wrong: async (u) => {
        refused.push(`wrong:${u.password}`);
        throw new AppException(ErrorCode.BAD_CREDENTIALS);
      },
    };
  });

  afterEach(() => store.close());

  /** Whether `userId`'s login mutex is held right now (by anyone). */
  const mutexHeld = async () => (await store.get(Keys.loginMutex('u1'))) !== null;

  it("runs the work under the account's login mutex, with the account as read there, once the right password is confirmed", async () => {
    let seen: { password: string; mutexHeld: boolean; slotsHeld: number } | null = null;
    const result = await proof.proveThen('u1', RIGHT, refusals, async (current) => {
      seen = { password: current.password, mutexHeld: await mutexHeld(), slotsHeld: await slots.held('u1') };
      return 'done';
    });
    expect(result).toBe('done');
    expect(seen).toEqual({ password: `hash:${RIGHT}`, mutexHeld: true, slotsHeld: 0 });
    expect(refused).toEqual([]);
    expect(await slots.held('u1')).toBe(0);
  });

  it('runs `first` after the compare and outside the mutex, and again when the proof starts over', async () => {
    const firsts: boolean[] = [];
    // The same password set again (a new salt, so a new hash) while the first compare runs.
    hasher.meanwhile = () => {
      account.password = `hash2:${RIGHT}`;
    };
    await proof.proveThen(
      'u1',
      RIGHT,
      refusals,
      async () => undefined,
      async () => {
        firsts.push(await mutexHeld());
      },
    );
    expect(hasher.compared).toEqual([`hash:${RIGHT}`, `hash2:${RIGHT}`]);
    expect(firsts).toEqual([false, false]);
  });

  it('refuses a wrong password with the account as read under the mutex, and frees its slot', async () => {
    let work = false;
    expect(
      await codeOf(
        proof.proveThen('u1', 'Wrong-pass1', refusals, async () => {
          work = true;
        }),
      ),
    ).toBe(ErrorCode.BAD_CREDENTIALS);
    expect(refused).toEqual([`wrong:hash:${RIGHT}`]);
    expect(work).toBe(false);
    expect(await slots.held('u1')).toBe(0);
  });

  it('refuses a locked account before any compare, spending the same time as one', async () => {
    account.locked = true;
    expect(await codeOf(proof.proveThen('u1', RIGHT, refusals, async () => undefined))).toBe(ErrorCode.ACCOUNT_LOCKED);
    expect(hasher.compared).toEqual([]);
    expect(hasher.burns).toBe(1);
    expect(refused).toEqual([`locked:hash:${RIGHT}`]);
  });

  it('compares again with the new hash when the password was reset during a right compare', async () => {
    hasher.meanwhile = () => {
      account.password = 'hash:Reset-pass1';
    };
    expect(await codeOf(proof.proveThen('u1', RIGHT, refusals, async () => undefined))).toBe(ErrorCode.BAD_CREDENTIALS);
    // The old hash matched, but a serial order would have compared with the new one: it did, and it is wrong.
    expect(hasher.compared).toEqual([`hash:${RIGHT}`, 'hash:Reset-pass1']);
    expect(refused).toEqual(['wrong:hash:Reset-pass1']);
    expect(await slots.held('u1')).toBe(0);
  });

  it('compares again with the new hash when the password was reset during a wrong compare, and is not counted for the old one', async () => {
    hasher.meanwhile = () => {
      account.password = `hash:Old-pass1`;
    };
    account.password = 'hash:Before-pass1';
    let ran = false;
    await proof.proveThen('u1', 'Old-pass1', refusals, async () => {
      ran = true;
    });
    expect(hasher.compared).toEqual(['hash:Before-pass1', 'hash:Old-pass1']);
    expect(refused).toEqual([]);
    expect(ran).toBe(true);
  });

  it('answers ACCOUNT_LOCKED to a right password when the account was locked during the compare', async () => {
    hasher.meanwhile = () => {
      account.locked = true;
    };
    let ran = false;
    expect(
      await codeOf(
        proof.proveThen('u1', RIGHT, refusals, async () => {
          ran = true;
        }),
      ),
    ).toBe(ErrorCode.ACCOUNT_LOCKED);
    expect(ran).toBe(false);
    expect(refused).toEqual([`locked:hash:${RIGHT}`]);
  });

  it('does not count a wrong password compared while the account got locked: it is refused as locked', async () => {
    hasher.meanwhile = () => {
      account.locked = true;
    };
    expect(await codeOf(proof.proveThen('u1', 'Wrong-pass1', refusals, async () => undefined))).toBe(
      ErrorCode.ACCOUNT_LOCKED,
    );
    expect(refused).toEqual([`locked:hash:${RIGHT}`]);
  });

  it('lets the caller confirm in its own mutex section (prove), and frees the slot however that section ends', async () => {
    const outcome = codeOf(
      proof.prove('u1', RIGHT, refusals, async (compared) => {
        expect(compared.user.password).toBe(`hash:${RIGHT}`);
        expect(await slots.held('u1')).toBe(1);
        await mutex.run(Keys.loginMutex('u1'), async () => {
          await compared.confirm({ ...account });
          throw new AppException(ErrorCode.ACCOUNT_DISABLED);
        });
      }),
    );
    expect(await outcome).toBe(ErrorCode.ACCOUNT_DISABLED);
    expect(await slots.held('u1')).toBe(0);
  });

  it('frees the slot when the caller never confirms', async () => {
    expect(
      await codeOf(
        proof.prove('u1', RIGHT, refusals, async () => {
          throw new AppException(ErrorCode.NOT_FOUND);
        }),
      ),
    ).toBe(ErrorCode.NOT_FOUND);
    expect(await slots.held('u1')).toBe(0);
  });
});
