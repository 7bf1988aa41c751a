import { Injectable } from '@nestjs/common';

import { AppException } from '../common/app.exception';
import { ErrorCode } from '../common/error-code';
import { PiiCipher } from '../pii/pii-cipher';
import { UserEntity } from '../user-account/user.entity';
import { UserLookup } from '../user-account/user-lookup.service';
import { PermanentDeliveryError } from './notification.types';

/** The addressee as it is at delivery time (a changed mailbox or mobile is used). */
@Injectable()
export class NotificationRecipients {
  constructor(
    private readonly accounts: UserLookup,
    private readonly pii: PiiCipher,
  ) {}

  /** With the mobile and e-mail opened: they are sent to. */
  async get(userId: string): Promise<UserEntity> {
    try {
      return this.pii.revealed(await this.accounts.get(userId));
    } catch (err) {
      if (err instanceof AppException && err.code === ErrorCode.NOT_FOUND) {
        throw new PermanentDeliveryError('the user no longer exists');
      }
      throw err;
    }
  }
}
