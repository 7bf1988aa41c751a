import { Injectable } from '@nestjs/common';

import { AuditLogService } from '../audit/audit-log.service';
import { AppException, fieldsFailed } from '../common/app.exception';
import { ErrorCode } from '../common/error-code';
import { auditedPii } from '../common/pii-mask';
import { MfaCrypto } from '../mfa/mfa-crypto';
import { maskEmail, maskMobile } from '../otp/mask';
import { confirmPurpose, OtpChannel } from '../otp/otp.types';
import { OtpCodes } from '../otp/otp-codes';
import { OtpSendService } from '../otp/otp-send.service';
import { PiiCipher } from '../pii/pii-cipher';
import { UserAdminService } from '../user-account/user-admin.service';
import { identifiersOf } from '../user-account/user-identifier';
import { UserLookup } from '../user-account/user-lookup.service';
import { ConfirmProfileDto, PendingContactDto, ProfileDto, UpdateProfileDto } from './dto/profile.dto';

/** Who changes their profile: the session's user, from where. */
export interface ProfileCaller {
  userId: string;
  ip: string;
}

const FIELD_OF = { sms: 'mobile', email: 'email' } as const;
const mask = (channel: OtpChannel, value: string) => (channel === 'sms' ? maskMobile(value) : maskEmail(value));

/**
 * A user's own name, mobile and e-mail (docs/security.md#own-profile). The name is
 * saved at once; a new mobile or e-mail only once the code sent to it comes back through confirm(),
 * so that an account's codes and notices never go to an address its owner does not hold. Clearing
 * one needs no code. The identifier rules of /sys/user/update hold (unique across fields, checked at
 * the request and again at the confirmation). Each saved change is audited as me.profile.update,
 * with mobile and e-mail masked.
 */
@Injectable()
export class ProfileService {
  constructor(
    private readonly accounts: UserAdminService,
    private readonly lookup: UserLookup,
    private readonly codes: OtpCodes,
    private readonly sender: OtpSendService,
    private readonly crypto: MfaCrypto,
    private readonly audit: AuditLogService,
    private readonly pii: PiiCipher,
  ) {}

  async update(caller: ProfileCaller, dto: UpdateProfileDto): Promise<{ pending: PendingContactDto[] }> {
    const user = this.pii.revealed(await this.lookup.get(caller.userId));
    const now: UpdateProfileDto = {};
    const later: { channel: OtpChannel; value: string }[] = [];
    if (dto.name !== undefined) now.name = dto.name;
    for (const channel of ['sms', 'email'] as const) {
      const field = FIELD_OF[channel];
      const value = dto[field];
      if (value === undefined || value === user[field]) continue;
      if (value === null) now[field] = null;
      else later.push({ channel, value });
    }
    // Every new identifier is checked before anything is saved or sent: a refusal changes nothing.
    const wanted = identifiersOf({ ...user, ...Object.fromEntries(later.map((l) => [FIELD_OF[l.channel], l.value])) });
    const problems = await this.accounts.identifierProblems(
      wanted.filter((i) => later.some((l) => FIELD_OF[l.channel] === i.kind)),
      user.id,
    );
    if (problems.length) throw fieldsFailed(problems);
    await this.save(caller, now);
    const pending: PendingContactDto[] = [];
    for (const { channel, value } of later) {
      await this.sender.sendForConfirmation(user, channel, value);
      pending.push({ channel, sentTo: mask(channel, value) });
    }
    return { pending };
  }

  /**
   * The code sent to a new mobile or e-mail: a right one makes it the account's (and is then used
   * up; a value another user took meanwhile is VALIDATION_FAILED and leaves the code usable for
   * nothing else). A wrong one is MFA_CODE_INVALID and counts one of the code's five tries; it does
   * not count toward the account's lock, whose owner proved who they are to ask for the code.
   */
  async confirm(caller: ProfileCaller, dto: ConfirmProfileDto): Promise<ProfileDto> {
    const purpose = confirmPurpose(dto.channel);
    const verdict = await this.codes.check(purpose, caller.userId, dto.code, false);
    if (!verdict.right || verdict.payload === undefined) throw new AppException(ErrorCode.MFA_CODE_INVALID);
    const value = this.crypto.decrypt(verdict.payload);
    await this.save(caller, { [FIELD_OF[dto.channel]]: value });
    // False when a parallel confirmation with the same code took it first: it saved the same value.
    await this.codes.consume(purpose, caller.userId, dto.code);
    const user = this.pii.revealed(await this.lookup.get(caller.userId));
    return { name: user.name, mobile: user.mobile, email: user.email };
  }

  private async save(caller: ProfileCaller, fields: UpdateProfileDto): Promise<void> {
    const changed = await this.accounts.changeOwn(caller.userId, fields);
    if (!changed) return;
    await this.audit.recordDone('me.profile.update', {
      actorId: caller.userId,
      actorName: changed.username,
      ip: caller.ip,
      targetId: caller.userId,
      targetName: changed.username,
      // Mobile and e-mail masked where every reader sees them, whole only sealed (docs/security.md#personal-data).
      ...auditedPii({ username: changed.username, old: changed.old, new: changed.new }),
    });
  }
}
