import { AppConfig, loadConfig } from '../config/app-config';
import { mailFrom, smtpTransportUrl } from './channels/email.channel';
import { EmailTemplates } from './channels/email-templates';
import { NotificationKind } from './notification.types';
import { contentAsText, formatNotificationTime, notificationContent } from './notification-content';
import { backoffMs, OUTBOX } from './outbox/outbox.options';

const at = new Date('2025-03-04T05:06:07.890Z');
const alert = {
  account: 'zhangsan',
  ip: '10.1.2.3',
  time: at.toISOString(),
  hint: { zh: '异常登录:密码错误', en: 'Abnormal login: wrong password' },
};

describe('notification content', () => {
  it('formats a time as local wall time with its UTC offset', () => {
    expect(formatNotificationTime(at)).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \(UTC[+-]\d{2}:\d{2}\)$/);
    const offset = -at.getTimezoneOffset();
    const local = new Date(at.getTime() + offset * 60_000).toISOString().slice(0, 19).replace('T', ' ');
    expect(formatNotificationTime(at.toISOString())).toContain(local);
  });

  it('a wrong password names the account, the attempted IP and time and the abnormal-login hint, in zh and en', () => {
    const zh = contentAsText(notificationContent(NotificationKind.LOGIN_FAILED, alert, 'zh'), 'zh');
    expect(zh).toContain('异常登录:密码错误');
    expect(zh).toContain('登录账号:zhangsan');
    expect(zh).toContain('尝试登录IP:10.1.2.3');
    expect(zh).toContain(`尝试登录时间:${formatNotificationTime(at)}`);
    const en = contentAsText(notificationContent(NotificationKind.LOGIN_FAILED, alert, 'en'), 'en');
    expect(en).toContain(
      'Abnormal login: wrong password. Account: zhangsan; Attempted from IP: 10.1.2.3; Attempted at: ',
    );
  });

  it('an unusual IP names the account, the login IP and time and the uncommon-IP hint', () => {
    const content = notificationContent(
      NotificationKind.UNUSUAL_IP,
      { ...alert, hint: { zh: '您的账号在不常用的IP登录', en: 'Login from an uncommon IP address' } },
      'zh',
    );
    expect(content.title).toBe('非常用IP登录提醒');
    expect(content.fields.map((f) => f.label)).toEqual(['登录账号', '登录IP', '登录时间']);
    expect(contentAsText(content)).toContain('您的账号在不常用的IP登录');
    const en = notificationContent(
      NotificationKind.UNUSUAL_IP,
      { ...alert, hint: { zh: '', en: 'Login from an uncommon IP address' } },
      'en',
    );
    expect(en.title).toBe('Login from an uncommon IP');
    expect(en.fields).toEqual([
      { label: 'Account', value: 'zhangsan' },
      { label: 'Login IP', value: '10.1.2.3' },
      { label: 'Login time', value: formatNotificationTime(at) },
    ]);
    expect(contentAsText(en, 'en')).toMatch(/^Login from an uncommon IP address\. /);
  });

  it('renders the e-mail templates in zh (default) and en, escaping HTML in the values', () => {
    const templates = new EmailTemplates();
    const content = notificationContent(NotificationKind.LOGIN_FAILED, { ...alert, account: '<b>x</b>' });
    const zh = templates.render(content, '张三');
    expect(zh.subject).toBe('异常登录提醒');
    expect(zh.html).toContain('<html lang="zh-CN">');
    expect(zh.html).toContain('&lt;b&gt;x&lt;/b&gt;');
    expect(zh.text).toContain('登录账号:<b>x</b>');
    expect(zh.text).toContain('张三,您好');
    const en = templates.render(
      notificationContent(
        NotificationKind.PASSWORD_EXPIRY,
        { account: 'li', expireTime: at.toISOString(), days: 1 },
        'en',
      ),
      'Li',
      'en',
    );
    expect(en.subject).toBe('Your password expires soon');
    expect(en.text).toContain('Hello Li,');
    expect(en.text).toContain('Your password expires in 1 day\n');
  });
});

describe('outbox and transport settings', () => {
  it('backs off exponentially from 5 s up to one hour', () => {
    expect([1, 2, 3, 4].map(backoffMs)).toEqual([5_000, 10_000, 20_000, 40_000]);
    expect(backoffMs(OUTBOX.maxAttempts + 20)).toBe(OUTBOX.backoffMaxMs);
  });

  it('adds connection timeouts to SMTP_URL unless it sets them, and picks a sender', () => {
    const url = new URL(smtpTransportUrl('smtp://u%40x.org:p@mail.example.com:587?socketTimeout=5'));
    expect(url.searchParams.get('connectionTimeout')).toBe('10000');
    expect(url.searchParams.get('socketTimeout')).toBe('5');
    const config = Object.assign(new AppConfig(), { SMTP_URL: 'smtp://u%40x.org:p@mail.example.com:587' });
    expect(mailFrom(config)).toBe('u@x.org');
    expect(mailFrom(Object.assign(new AppConfig(), { MAIL_FROM: 'Sec <sec@x.org>' }))).toBe('Sec <sec@x.org>');
    expect(mailFrom(new AppConfig())).toBe('no-reply@localhost');
    // A bad value stops the start, naming the variable.
    expect(() => loadConfig({ SMTP_URL: 'mail.example.com:25' })).toThrow(/SMTP_URL/);
  });
});
