import type zh from './zh';

const en: typeof zh = {
  app: { title: 'Login policy console' },
  common: {
    search: 'Search', reset: 'Reset', save: 'Save', cancel: 'Cancel', confirm: 'OK', close: 'Close', refresh: 'Refresh',
    operations: 'Actions', confirmTitle: 'Confirm', success: 'Done', copy: 'Copy', copied: 'Copied', yes: 'Yes', no: 'No',
    minutes: 'minutes', hours: 'hours', days: 'days', times: 'times', chars: 'characters', range: 'allowed {min} – {max}', none: 'none',
    default: 'default {value}',
  },
  menu: {
    system: 'System management', strategy: 'System strategy', users: 'Users', loginlog: 'Login log', online: 'Online sessions',
    auditlog: 'Audit log', me: 'My account', devices: 'My devices', messages: 'Message centre', password: 'Change password',
  },
  header: { logout: 'Log out', password: 'Change password', lang: '中文', unread: 'Unread messages' },
  login: {
    title: 'Login policy console', tabPassword: 'Account and password', tabQrcode: 'Log in with a code from another device',
    account: 'Account name / mobile / e-mail', password: 'Password', captcha: 'Captcha', captchaRefresh: 'Click for a new captcha',
    submit: 'Log in', accountRequired: 'Enter your account', passwordRequired: 'Enter your password', captchaRequired: 'Enter the captcha',
    qrcodeHint: 'On a device that is logged in, open "My devices" → "Authorise another device" and enter the code shown, or scan its QR code.',
    qrcodeCode: 'Authorisation code', qrcodeRequired: 'Enter the code', qrcodeSubmit: 'Log in with the code', scan: 'Scan with camera',
    scanStop: 'Stop scanning', scanFailed: 'The camera cannot be opened: {reason}',
  },
  password: {
    title: 'Change password', forcedTitle: 'Change your password first', forcedHint: 'This is a temporary session: after the change, log in again.',
    old: 'Old password', new: 'New password', confirm: 'Repeat new password', submit: 'Change password', rules: 'Password rules',
    mismatch: 'The two new passwords differ', required: 'Fill in every field', back: 'Back',
    done: 'Password changed', doneRelogin: 'Password changed, log in again with the new password',
    rule: {
      min: 'At least {n} characters', max: 'At most {n} characters', bytes: 'At most 72 bytes (UTF-8)', digit: 'A digit',
      upper: 'An upper-case letter', lower: 'A lower-case letter', symbol: 'A special character (not a letter, digit or space)',
    },
  },
  strategy: {
    tabLogin: 'Login strategy', tabUser: 'Account strategy', saved: 'Strategy saved', noPermission: 'You may not read this strategy',
    field: {
      sessionExpireMinutes: { label: 'Session validity', help: 'Lifetime of a normal token; renewed when less than half is left' },
      tempSessionExpireMinutes: { label: 'Temporary session validity', help: 'Lifetime of a temporary token (password change required)' },
      lockMinutes: { label: 'Lock duration', help: 'How long a lock (wrong passwords or administrator) lasts before it ends by itself' },
      maxFailureTimes: { label: 'Failures before lock', help: 'Wrong passwords within the window that lock the account' },
      maxFailureInterval: { label: 'Failure counting window', help: 'Window in which wrong passwords are counted' },
      sendMsgWhenErrorLogin: { label: 'Wrong-password notification', help: 'Channels that tell the user about a wrong password; none: no notification' },
      sendMsgWhenErrorIp: { label: 'Unusual-IP notification', help: 'Channels that tell the user about a login from an uncommon IP; none: no notification' },
      loginStrategyWhenExpire: { label: 'When the password has expired', help: 'What a login with an expired password does' },
      bindIp: { label: 'Bind session to IP', help: 'A token works only from the IP that logged in' },
      multiOnline: { label: 'Several devices at once', help: 'Off: a new login kicks out the account\'s other sessions' },
      passwordExpireDays: { label: 'Password validity', help: 'Days a password is valid after its last change (an initial password: after the account was created); 0 never expires' },
      expireNotifyDays: { label: 'Expiry reminder', help: 'Days before expiry at which the user is reminded' },
      minPasswordLength: { label: 'Minimum password length', help: '0: no minimum' },
      maxPasswordLength: { label: 'Maximum password length', help: '0: no maximum (still at most 72 bytes); not below the minimum' },
      includeLowerCase: { label: 'Lower-case letter required', help: 'At least one a–z' },
      includeUpperCase: { label: 'Upper-case letter required', help: 'At least one A–Z' },
      includeNumber: { label: 'Digit required', help: 'At least one 0–9' },
      includeSymbol: { label: 'Special character required', help: 'At least one character that is not a letter, digit or space' },
      forceUpdatePassword: { label: 'Force change of initial passwords', help: 'A login with an initial password (new or reset) must change it first' },
    },
    channel: { email: 'E-mail', sms: 'SMS', site: 'Site message' },
    expireShort: { 1: 'Tip', 2: 'Force', 3: 'Refuse' },
    expire: {
      1: 'Tip: log in, and ask for a change soon',
      2: 'Force: temporary token, password must be changed',
      3: 'Refuse: no login, contact the administrator',
    },
  },
  users: {
    keyword: 'User name / name / mobile / e-mail', create: 'New user', username: 'User name', name: 'Name', mobile: 'Mobile',
    email: 'E-mail', roles: 'Roles', state: 'State', createTime: 'Created', lock: 'Lock', unlock: 'Unlock', disable: 'Disable',
    enable: 'Enable', reset: 'Reset password', createTitle: 'New user', created: 'User created',
    generatedPassword: 'Initial password (shown this once; hand it to the user)', resetTitle: 'Password reset',
    resetDefault: 'The password was reset to the configured default password', usernameRequired: 'Enter a user name',
    confirm: {
      lock: 'Lock user "{name}"? All their sessions end.', unlock: 'Unlock user "{name}"?',
      disable: 'Disable user "{name}"? All their sessions end.', enable: 'Enable user "{name}"?',
      reset: 'Reset the password of "{name}"? All their sessions end.',
    },
    badge: {
      normal: 'Active', lockedUntil: 'Locked until {time}', locked: 'Locked', lockDue: 'Lock expired (ends at next login)',
      disabled: 'Disabled', expiresIn: 'Password expires in {n} days', expired: 'Password expired', initial: 'Initial password', neverExpires: 'Password never expires',
    },
  },
  loginlog: {
    account: 'Account', userName: 'Name', status: 'Status', type: 'Login type', ip: 'IP address', browser: 'Browser',
    os: 'OS', time: 'Login time', reason: 'Failure reason', range: 'Login time range', start: 'From', end: 'To',
    statusName: { success: 'Success', passwrong: 'Wrong password', mfawrong: 'Wrong verification code', locked: 'Locked', disabled: 'Disabled', expired: 'Expired' },
    typeName: { account: 'Account', mobile: 'Mobile', email: 'E-mail', qrcode: 'Code', passchange: 'Password change', mfa: 'Two-factor authentication' },
  },
  online: {
    user: 'User', ip: 'IP address', browser: 'Browser', os: 'OS', loginTime: 'Logged in', expireAt: 'Expires',
    kickout: 'Force logout', temp: 'Temporary', current: 'This session', confirmKick: 'Force this session of "{name}" to log out?',
    kicked: 'Session ended',
  },
  devices: {
    sessions: 'My sessions', authorise: 'Authorise another device', generate: 'Generate code', regenerate: 'New code',
    hint: 'On the other device choose "Log in with a code from another device" and scan the QR code or type the code. It works once.',
    expiresIn: 'expires in {time}', expired: 'The code has expired, generate a new one', code: 'Code',
    confirmKick: 'Log this device out?',
  },
  messages: {
    title: 'Title', content: 'Content', kind: 'Kind', time: 'Time', state: 'State', read: 'Read', unread: 'Unread',
    markRead: 'Mark read', readAll: 'Mark all read', unreadOnly: 'Unread only', newMessage: 'New message',
    kindName: { 'login-failed': 'Wrong password', 'unusual-ip': 'Unusual IP', 'password-expiry': 'Password expiry', 'recovery-code-used': 'Recovery code used' },
  },
  audit: {
    action: 'Action', username: 'By', target: 'Target', ip: 'IP address', time: 'Time', detail: 'Detail',
    actionName: {
      'strategy_login_save': 'Login strategy saved', 'strategy_user_save': 'Account strategy saved', 'user_lock': 'User locked',
      'user_unlock': 'User unlocked', 'user_disable': 'User disabled', 'user_enable': 'User enabled', 'user_resetPass': 'Password reset',
      'online_kickout': 'Session kicked out', 'user_create': 'User created', 'role_save': 'Role saved',
      'user_recover': 'Account recovered on the server', 'qrcode_authorize': 'QR login authorised',
      'user_mfaReset': 'Two-factor authentication reset',
    },
  },
};

export default en;
