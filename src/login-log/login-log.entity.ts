import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { DATETIME } from '../common/datetime';

export enum LoginStatus {
  SUCCESS = 'success',
  PASSWRONG = 'passwrong',
  /** Contract §8: a wrong second-factor code; counted by the lock check together with passwrong. */
  MFAWRONG = 'mfawrong',
  LOCKED = 'locked',
  DISABLED = 'disabled',
  EXPIRED = 'expired',
}

export enum LoginTypes {
  ACCOUNT = 'account',
  MOBILE = 'mobile',
  EMAIL = 'email',
  QRCODE = 'qrcode',
  /** Contract §11: the old password of /sys/me/pass/update, proven like a login. */
  PASSCHANGE = 'passchange',
  /** Contract §8: a second-factor code proven on /sys/me/mfa/* (disable, new recovery codes). */
  MFA = 'mfa',
}

/** Contract §6 `sys_login_log`: one row per login attempt (spec 2.6). */
@Entity('sys_login_log')
// Serves the failure count of spec 3.1 and the last-3-successes of spec 4.1 step 10.
@Index('idx_login_log_user_status_time', ['userId', 'status', 'loginTime'])
@Index('idx_login_log_time', ['loginTime'])
export class LoginLogEntity {
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

  @Column({ name: 'failure_reason', type: 'varchar', length: 255, nullable: true })
  failureReason: string | null;
}
