import { LoginTypes } from '../../login-log/login-log.entity';

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

/** Spec 4.2 / 4.1 step 10: login from none of the latest 3 successful IPs. */
export class UnusualIpEvent {
  static readonly NAME = 'auth.unusual-ip';
  readonly hint = { zh: '您的账号在不常用的IP登录', en: 'Login from an uncommon IP address' };
  constructor(
    readonly userId: string,
    readonly account: string,
    readonly ip: string,
    readonly time: Date,
  ) {}
}
