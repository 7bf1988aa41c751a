import { codeOf } from '../../../test/support/code-of';
import { fakeChecks, proofUser } from '../../../test/support/login-checks';
import { AppException } from '../../common/app.exception';
import { ErrorCode } from '../../common/error-code';
import type { ComparedPassword } from '../../user-account/password-proof.service';
import type { UserEntity } from '../../user-account/user.entity';
import { PasswordLoginProof } from './password-login.proof';

describe('PasswordLoginProof (the password way in, inside the tail)', () => {
  /** A compared password whose confirm records the account it was given and answers as `outcome` says. */
  const compared = (calls: string[], outcome: 'confirmed' | ErrorCode = 'confirmed'): ComparedPassword => ({
    user: proofUser(),
    confirm: async (current: UserEntity) => {
      calls.push(`confirm:${current.password}`);
      if (outcome !== 'confirmed') throw new AppException(outcome);
    },
  });

  it('is named', () => {
    expect(new PasswordLoginProof(compared([])).name).toBe('password');
  });

  it('confirms the match against the account the tail just read, then checks that it is enabled', async () => {
    const calls: string[] = [];
    const now = proofUser({ password: 'hash:Right-pass1' });
    await new PasswordLoginProof(compared(calls)).prove(fakeChecks(now, calls));
    expect(calls).toEqual(['confirm:hash:Right-pass1', 'checkDisabled']);
  });

  it('refuses a disabled account once the password is confirmed', async () => {
    const calls: string[] = [];
    expect(
      await codeOf(new PasswordLoginProof(compared(calls)).prove(fakeChecks(proofUser({ disabled: true }), calls))),
    ).toBe(ErrorCode.ACCOUNT_DISABLED);
    expect(calls).toEqual(['confirm:hash:Right-pass1', 'checkDisabled']);
  });

  it('goes no further when the confirmation refuses (locked meanwhile)', async () => {
    const calls: string[] = [];
    expect(
      await codeOf(
        new PasswordLoginProof(compared(calls, ErrorCode.ACCOUNT_LOCKED)).prove(fakeChecks(proofUser(), calls)),
      ),
    ).toBe(ErrorCode.ACCOUNT_LOCKED);
    expect(calls).toEqual(['confirm:hash:Right-pass1']);
  });
});
