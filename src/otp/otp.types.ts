/** Where a one-time code goes. */
export const OTP_CHANNELS = ['sms', 'email'] as const;
export type OtpChannel = (typeof OTP_CHANNELS)[number];

/** What a code is good for: a code of one purpose never serves another. */
export const OTP_PURPOSES = ['login', 'reset', 'mfa', 'confirm-sms', 'confirm-email'] as const;
export type OtpPurpose = (typeof OTP_PURPOSES)[number];

/** The purpose of a code confirming a new mobile (`sms`) or e-mail (`email`) of one's own profile. */
export const confirmPurpose = (channel: OtpChannel) => `confirm-${channel}` as const;

/** What the client may ask for by account; `mfa` codes are asked for with an mfaToken. */
export const ACCOUNT_PURPOSES = ['login', 'reset'] as const;
export type AccountPurpose = (typeof ACCOUNT_PURPOSES)[number];

/** A code: 6 digits, 5 minutes, 5 wrong tries. */
export const OTP_DIGITS = 6;
export const OTP_TTL_MS = 5 * 60_000;
export const OTP_MAX_TRIES = 5;
export const OTP_CODE = /^\d{6}$/;

/** Sends per account as typed and per recipient: one a minute, ten a day. */
export const OTP_SENDS_PER_MINUTE = 1;
export const OTP_SENDS_PER_DAY = 10;
