import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

import { SealedLogColumns } from '../audit/sealed-log-columns';
import { DATETIME } from '../common/datetime';

export enum LoginStatus {
  SUCCESS = 'success',
  PASSWRONG = 'passwrong',
  /** A wrong second-factor code; counted by the lock check together with passwrong. */
  MFAWRONG = 'mfawrong',
  LOCKED = 'locked',
  DISABLED = 'disabled',
  EXPIRED = 'expired',
  /** Refused by a login access rule after a right proof (ACCESS_DENIED); not counted by the lock. */
  DENIED = 'denied',
}

export enum LoginTypes {
  ACCOUNT = 'account',
  MOBILE = 'mobile',
  EMAIL = 'email',
  QRCODE = 'qrcode',
  /** The old password of /sys/me/pass/update, proven like a login. */
  PASSCHANGE = 'passchange',
  /** A second-factor code proven on /sys/me/mfa/* (disable, new recovery codes). */
  MFA = 'mfa',
  /** A password or code proven at /sys/me/reauth (the fresh proof of step-up). */
  REAUTH = 'reauth',
  /** A passkey (WebAuthn) login, by account or discoverable. */
  PASSKEY = 'passkey',
  /** A login with a one-time code sent by SMS (POST /sys/login/otp). */
  SMSCODE = 'smscode',
  /** A login with a one-time code sent by e-mail. */
  EMAILCODE = 'emailcode',
  /** A code proven at /sys/password/reset (the forgotten password). */
  PASSRESET = 'passreset',
}

/** `sys_login_log`: one row per login attempt. */
@Entity('sys_login_log')
// Serves the lock's failure count and the last-3-successes of the unusual-IP check.
@Index('idx_login_log_user_status_time', ['userId', 'status', 'loginTime'])
@Index('idx_login_log_time', ['loginTime'])
// The account and IP prefix filters of the log list (on SQLite the migration creates them with COLLATE NOCASE, see like-prefix.ts).
@Index('idx_login_log_account', ['account'])
@Index('idx_login_log_ip', ['ip'])
export class LoginLogEntity extends SealedLogColumns {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'user_id', type: 'varchar', length: 36, nullable: true })
  userId: string | null;

  @Column({ type: 'varchar', length: 128 })
  account: string;

  @Column({ name: 'user_name', type: 'varchar', length: 64, nullable: true })
  userName: string | null;

  @Column({ name: 'login_type', type: 'varchar', length: 16 })
  loginType: LoginTypes;

  @Column({ type: 'varchar', length: 16 })
  status: LoginStatus;

  @Column({ type: 'varchar', length: 64 })
  ip: string;

  @Column({ type: 'varchar', length: 64, nullable: true })
  browser: string | null;

  @Column({ type: 'varchar', length: 64, nullable: true })
  os: string | null;

  @Column({ ...DATETIME, name: 'login_time' })
  loginTime: Date;

  /** The failure reason as text (the zh message of the answer), kept as it was written. */
  @Column({ name: 'failure_reason', type: 'varchar', length: 255, nullable: true })
  failureReason: string | null;

  /**
   * The ErrorCode of that answer, so that the console can show the reason in its own language;
   * `ACCOUNT_LOCKED` on a failure record (passwrong, mfawrong) marks the failure that
   * locked the account. Null for successes.
   */
  @Column({ name: 'failure_code', type: 'varchar', length: 32, nullable: true })
  failureCode: string | null;

  /**
   * The account whole, sealed by the personal-data cipher, where `account` holds it masked (a mobile or
   * an e-mail): opened only for a holder of sys:user:pii. Text: 128 characters of four bytes each, sealed,
   * outgrow any short column.
   */
  @Column({ name: 'pii_account', type: 'text', nullable: true })
  piiAccount?: string | null;
}

/** What a row's MAC covers, in this order: every field but the id and the seal columns. */
export function loginLogSealFields(row: Omit<LoginLogEntity, 'id'>): unknown[] {
  return [
    row.userId,
    row.account,
    row.userName,
    row.loginType,
    row.status,
    row.ip,
    row.browser,
    row.os,
    row.loginTime.toISOString(),
    row.failureReason,
    row.failureCode,
    // Only where there is one, so that the rows written before the column came verify as they were sealed.
    ...(row.piiAccount ? [row.piiAccount] : []),
  ].map((v) => v ?? null);
}
