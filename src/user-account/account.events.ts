import { LoginTypes } from '../login-log/login-log.entity';

/** Spec 4.2: wrong password → login account, attempted IP and time, the abnormal-login hint. */
export class LoginFailedEvent {
  static readonly NAME = 'auth.login-failed';
  readonly hint = { zh: '异常登录:密码错误', en: 'Abnormal login: wrong password' };
  constructor(
    readonly userId: string,
    readonly account: string,
    readonly loginType: LoginTypes,
    readonly ip: string,
    readonly time: Date,
  ) {}
}
