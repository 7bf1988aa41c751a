import { ExtensionPoint } from '../common/extension-point';

/** How many passkeys each of the given users has: the user list's passkeyCount. */
export interface UserPasskeys {
  countsAmong(userIds: string[]): Promise<Map<string, number>>;
}

/** Answered by the passkey module; without one, nobody has a passkey. */
export const USER_PASSKEYS = new ExtensionPoint<UserPasskeys>('USER_PASSKEYS');
