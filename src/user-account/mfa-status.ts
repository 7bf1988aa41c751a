import { ExtensionPoint } from '../common/extension-point';

/** Which of the given users have a second factor enabled: the user list's mfaEnabled. */
export interface MfaStatus {
  enabledAmong(userIds: string[]): Promise<Set<string>>;
}

/** Answered by the second-factor module; without one, nobody has a second factor. */
export const MFA_STATUS = new ExtensionPoint<MfaStatus>('MFA_STATUS');
