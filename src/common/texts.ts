import type { ErrorCode } from './error-code';

/**
 * The one catalogue of what the service says to people, in zh (the default)
 * and en (`Accept-Language: en`). Every entry names both languages, so a text missing one does not
 * compile. `{name}` marks a parameter; both languages of an entry use the same ones (texts.spec.ts).
 * The web console keeps its own texts (web/).
 */
export type Locale = 'zh' | 'en';
export type Bilingual = { zh: string; en: string };
export type TextParams = Record<string, string | number>;

/** The message of each error code, to the character. */
const errors = {
  OK: { zh: '操作成功', en: 'Success' },
  VALIDATION_FAILED: { zh: '参数校验失败', en: 'Invalid request' },
  CAPTCHA_INVALID: { zh: '验证码错误或已失效', en: 'The captcha is wrong or has expired' },
  BAD_CREDENTIALS: { zh: '用户名或密码错误', en: 'Wrong user name or password' },
  ACCOUNT_LOCKED: { zh: '用户已被锁定', en: 'The account is locked' },
  ACCOUNT_DISABLED: { zh: '用户已被禁用', en: 'The account is disabled' },
  ACCOUNT_EXPIRED: {
    zh: '您的账户已过期,请联系管理员',
    en: 'Your account has expired, please contact the administrator',
  },
  OLD_PASSWORD_WRONG: { zh: '旧密码不正确', en: 'The old password is not correct' },
  PASSWORD_TOO_SHORT: { zh: '密码长度应大于{min}', en: 'The password must be at least {min} characters long' },
  PASSWORD_TOO_LONG: { zh: '密码长度应小于{max}', en: 'The password must be at most {max} characters long' },
  PASSWORD_NEEDS_DIGIT: { zh: '密码应包含数字', en: 'The password must contain a digit' },
  PASSWORD_NEEDS_UPPER: { zh: '密码应包含大写字符', en: 'The password must contain an upper-case letter' },
  PASSWORD_NEEDS_LOWER: { zh: '密码应包含小写字符', en: 'The password must contain a lower-case letter' },
  PASSWORD_NEEDS_SYMBOL: { zh: '密码应包含特殊字符', en: 'The password must contain a special character' },
  // A user's own change, after the six rules above.
  PASSWORD_CONTAINS_ACCOUNT: {
    zh: '密码不能包含账号、手机号或邮箱',
    en: 'The password must not contain your account name, mobile number or e-mail',
  },
  PASSWORD_TOO_COMMON: { zh: '密码过于常见,请更换', en: 'The password is too common, please choose another' },
  PASSWORD_REUSED: {
    zh: '新密码不能与最近{n}次使用的密码相同',
    en: 'The new password must differ from your last {n} passwords',
  },
  NOT_LOGGED_IN: { zh: '未登录或登录已过期', en: 'Not logged in, or the session has expired' },
  KICKED_OUT: { zh: '账号已在其他地方登录', en: 'The account has logged in elsewhere' },
  IP_MISMATCH: { zh: '登录IP已变化,请重新登录', en: 'Your IP address has changed, please log in again' },
  TEMP_TOKEN_FORBIDDEN: { zh: '请先修改密码', en: 'Please change your password first' },
  FORBIDDEN: { zh: '没有权限', en: 'Permission denied' },
  QRCODE_INVALID: { zh: '二维码无效或已过期', en: 'The QR code is invalid or has expired' },
  MFA_CODE_INVALID: { zh: '动态验证码错误', en: 'The verification code is wrong' },
  MFA_TOKEN_INVALID: { zh: '验证已过期,请重新登录', en: 'The verification has expired, please log in again' },
  MFA_ALREADY_ENABLED: { zh: '已启用双因素认证', en: 'Two-factor authentication is already enabled' },
  // The operation needs a fresh proof (/sys/me/reauth) first.
  REAUTH_REQUIRED: { zh: '请先验证身份', en: 'Please verify your identity first' },
  // A login access rule refuses the client's network or the time (docs/security.md#login-access-rules).
  ACCESS_DENIED: {
    zh: '当前网络或时间不允许登录',
    en: 'Logging in is not allowed from this network or at this time',
  },
  NOT_FOUND: { zh: '资源不存在', en: 'Not found' },
  RATE_LIMITED: { zh: '请求过于频繁,请稍后再试', en: 'Too many requests, please try again later' },
  SERVICE_UNAVAILABLE: { zh: '服务暂时不可用,请稍后再试', en: 'The service is temporarily unavailable' },
  INTERNAL: { zh: '系统内部错误', en: 'Internal error' },
} satisfies Record<ErrorCode, Bilingual>;

/** The `tip` of a successful login. */
const tips = {
  PASSWORD_EXPIRED_TIP: { zh: '您的密码已过期,请尽快修改密码', en: 'Your password has expired, please change it soon' },
  PASSWORD_EXPIRED_FORCE: {
    zh: '您的密码已过期,请修改密码后再登录',
    en: 'Your password has expired, change it before logging in',
  },
  INITIAL_PASSWORD_FORCE: {
    zh: '您的密码为初始密码,请修改密码后再登录',
    en: 'You are using an initial password, change it before logging in',
  },
  INITIAL_PASSWORD_TIP: {
    zh: '您的密码为初始密码,请尽快修改密码',
    en: 'You are using an initial password, please change it soon',
  },
  /** mfaMode 2, a user who has not enrolled yet. */
  MFA_SETUP_REQUIRED: { zh: '请先绑定双因素认证', en: 'Set up two-factor authentication first' },
  PASSWORD_EXPIRES_SOON: {
    zh: '您的密码将在{days}天后过期,请尽快修改密码',
    en: 'Your password expires in {days} days, please change it soon',
  },
} satisfies Record<string, Bilingual>;

/**
 * VALIDATION_FAILED names the field by its label (`{label}`, the `field` group) and the rule in the
 * caller's language; the rules class-validator checks are the `rule` group.
 */
const validation = {
  notJsonObject: { zh: '请求体必须是JSON对象', en: 'The request body must be a JSON object' },
  notUnicode: { zh: '{label}含有无法识别的字符', en: '{label} is not well-formed Unicode text' },
  nestedTooDeep: { zh: '请求体嵌套过深', en: 'The request body is nested too deeply' },
  bodyTooLarge: { zh: '请求体过大', en: 'The request body is too large' },
  unsupportedMediaType: { zh: '不支持的请求类型,请使用JSON', en: 'Unsupported content type; send JSON' },
  invalidJson: { zh: '请求体不是合法的JSON', en: 'The request body is not valid JSON' },
  undecryptable: {
    zh: '{label}无法解密,请使用/sys/publicKey的公钥以{algorithm}加密',
    en: '{label} does not decrypt; encrypt it with {algorithm} under /sys/publicKey',
  },
  maxBelowMin: {
    zh: '{label}不能小于密码最小长度({min})',
    en: '{label} must not be below the minimum password length ({min})',
  },
  identifierTaken: {
    zh: '{label}已被其他用户的用户名、手机号或邮箱使用(用户名和邮箱不区分大小写)',
    en: '{label}: another user already has it as user name, mobile or e-mail (user names and e-mails ignore case)',
  },
  adminKeepsAll: { zh: '内置角色admin必须保留全部权限(*)', en: 'The built-in role admin must keep permission *' },
  unknownRoles: { zh: '{label}中有不存在的角色: {roles}', en: '{label}: unknown {roles}' },
  mobile: {
    zh: '{label}应为11位中国大陆手机号,或以+和国家代码开头的国际号码',
    en: '{label}: not a mobile number (11 digits of a mainland China number, or + and the country code)',
  },
  email: { zh: '{label}不是有效的邮箱地址', en: '{label}: not an e-mail address' },
  identifierCharacters: {
    zh: '{label}不能包含控制字符、格式字符(如零宽字符、双向控制字符)或空白字符',
    en: '{label} must not contain control, format (zero-width, bidirectional) or white-space characters',
  },
  nameCharacters: {
    zh: '{label}不能包含控制字符或格式字符(如零宽字符、双向控制字符)',
    en: '{label} must not contain control or format (zero-width, bidirectional) characters',
  },
  mixedScripts: {
    zh: '{label}的用户名部分或域名混用了拉丁、西里尔或希腊字母',
    en: '{label}: its local part or domain mixes Latin, Cyrillic or Greek letters',
  },
  idOrIds: { zh: '请给出编号或编号列表其中之一', en: 'Give either id or ids' },
  passwordOrCode: { zh: '请给出密码或验证码其中之一', en: 'Give either password or code' },
  roleInUse: {
    zh: '角色{code}仍被{count}个用户使用,请先取消分配',
    en: 'The role {code} is still held by {count} user(s); take it from them first',
  },
  adminRoleKept: { zh: '内置角色admin不能删除', en: 'The built-in role admin cannot be deleted' },
  builtInRoleKept: {
    zh: '内置角色{code}不能修改或删除(三员分立)',
    en: 'The built-in role {code} cannot be changed or deleted (three administrators)',
  },
  roleMixesSets: {
    zh: '一个角色的权限只能属于系统、安全、审计中的一类(三员分立)',
    en: 'The permissions of a role must all belong to one of the system, security and audit sets (three administrators)',
  },
  membersWouldMixSets: {
    zh: '持有该角色的{count}个用户将同时拥有两类管理员的权限(三员分立)',
    en: '{count} user(s) holding this role would hold permissions of two administrator sets (three administrators)',
  },
  userRolesMixSets: {
    zh: '一个用户的角色只能属于系统、安全、审计中的一类(三员分立)',
    en: "A user's roles must all belong to one of the system, security and audit sets (three administrators)",
  },
  ipRange: {
    zh: '{label}不是IP地址或CIDR网段(如192.168.1.10、10.0.0.0/8、2001:db8::/32)',
    en: '{label}: not an IP address or a CIDR range (such as 192.168.1.10, 10.0.0.0/8 or 2001:db8::/32)',
  },
  ipRangeEach: {
    zh: '{label}的每一项应为IP地址或CIDR网段(如10.0.0.0/8、2001:db8::/32)',
    en: '{label}: each entry must be an IP address or a CIDR range (such as 10.0.0.0/8, 2001:db8::/32)',
  },
  unknownCodes: { zh: '{label}中有未知的权限编码: {codes}', en: '{label}: unknown permission codes {codes}' },
  apiKeyCodes: { zh: 'API密钥不能持有这些权限: {codes}', en: 'An API key cannot hold {codes}' },
  apiKeyNameTaken: {
    zh: '已有名为{name}的API密钥(名称不区分大小写)',
    en: 'An API key named {name} already exists (names ignore case)',
  },
  ipAddress: { zh: '{label}不是IP地址', en: '{label}: not an IP address' },
  clockTime: {
    zh: '{label}应为HH:mm格式的时间(00:00至23:59,结束时间也可为24:00)',
    en: '{label}: not a time of the form HH:mm (00:00 to 23:59; an end may also be 24:00)',
  },
  weekDay: {
    zh: '{label}应为1到7(星期一为1)且不重复',
    en: '{label}: days are 1 to 7 (Monday = 1), each at most once',
  },
  unknownUsers: { zh: '{label}中有不存在的用户: {users}', en: '{label}: unknown {users}' },
  unknownUser: { zh: '{label}对应的用户不存在', en: '{label}: no such user' },
  locksOutCaller: {
    zh: '操作未执行: 执行后您将无法从当前IP({ip})在此时登录',
    en: 'Not done: afterwards you could not log in from your current IP ({ip}) at this time',
  },
  duplicateRole: {
    zh: '角色编码{code}已存在(角色编码不区分大小写)',
    en: 'The role code {code} already exists (role codes ignore case)',
  },
  webhookUrl: { zh: '{label}须为http或https地址', en: '{label} must be an http or https URL' },
  webhookUrlCredentials: {
    zh: '{label}中不能包含用户名或密码',
    en: '{label}: the URL must not contain a user name or password',
  },
  passkeyResponse: {
    zh: '通行密钥验证失败或已过期,请重试',
    en: 'The passkey could not be verified or its challenge expired; try again',
  },
  passkeyShape: {
    zh: '{label}须为浏览器 navigator.credentials.get() 的应答',
    en: '{label} must be the answer of navigator.credentials.get()',
  },
  passkeyLimit: {
    zh: '通行密钥数量已达上限({max}个)',
    en: 'You already have the most passkeys allowed ({max})',
  },
} satisfies Record<string, Bilingual>;

/** And expireNotifyDays: e-mail, SMS and site message contents. */
const notification = {
  wrongPasswordHint: { zh: '异常登录:密码错误', en: 'Abnormal login: wrong password' },
  wrongCodeHint: { zh: '异常登录:动态验证码错误', en: 'Abnormal login: wrong verification code' },
  recoveryCodeUsedTitle: { zh: '恢复码已使用', en: 'A recovery code was used' },
  recoveryCodeUsedHint: {
    zh: '您的账号使用恢复码完成了双因素认证',
    en: 'A recovery code was used to log in to your account',
  },
  recoveryCodeUsedAdvice: {
    zh: '如非本人操作,请立即修改密码、重新生成恢复码并联系管理员。',
    en: 'If this was not you, change your password, generate new recovery codes and tell your administrator.',
  },
  unusualIpHint: { zh: '您的账号在不常用的IP登录', en: 'Login from an uncommon IP address' },
  loginFailedTitle: { zh: '异常登录提醒', en: 'Abnormal login alert' },
  unusualIpTitle: { zh: '非常用IP登录提醒', en: 'Login from an uncommon IP' },
  loginAlertAdvice: {
    zh: '如非本人操作,请立即修改密码并联系管理员。',
    en: 'If this was not you, change your password now and tell your administrator.',
  },
  passwordExpiryTitle: { zh: '密码即将过期', en: 'Your password expires soon' },
  passwordExpiryLead: { zh: '您的密码将在{days}天后过期', en: 'Your password expires in {days} days' },
  passwordExpiryLeadOneDay: { zh: '您的密码将在{days}天后过期', en: 'Your password expires in {days} day' },
  passwordExpiryAdvice: { zh: '请尽快登录并修改密码。', en: 'Please log in and change it soon.' },
  accountDormantTitle: { zh: '账号已因长期未登录停用', en: 'Your account was disabled for inactivity' },
  accountDormantLead: {
    zh: '您的账号已连续{days}天没有成功登录,已被系统停用',
    en: 'Your account has had no successful login for {days} days and was disabled',
  },
  accountDormantAdvice: {
    zh: '如需继续使用,请联系管理员启用。',
    en: 'If you still need it, ask your administrator to enable it.',
  },
  loginAttackStartedTitle: { zh: '登录遭受攻击,已启用验证码', en: 'Logins under attack: captcha on' },
  loginAttackStartedLead: {
    zh: '全服务每分钟登录失败次数达到{threshold}次,所有登录都须输入验证码',
    en: 'Failed logins across the service reached {threshold} a minute; every login now needs a captcha',
  },
  loginAttackStartedAdvice: {
    zh: '请查看登录日志中的来源IP,必要时添加访问规则。',
    en: 'Look at the source IPs in the login log and add access rules if needed.',
  },
  loginAttackEndedTitle: { zh: '登录攻击已结束', en: 'Login attack over' },
  loginAttackEndedLead: {
    zh: '登录失败次数已连续5分钟低于每分钟{threshold}次,验证码恢复原设置',
    en: 'Failed logins stayed below {threshold} a minute for 5 minutes; the captcha is back to its setting',
  },
  loginAttackEndedAdvice: { zh: '无需操作。', en: 'Nothing to do.' },
  labelTime: { zh: '时间', en: 'Time' },
  labelLastLoginTime: { zh: '最后登录时间', en: 'Last login' },
  neverLoggedIn: { zh: '从未登录', en: 'never' },
  labelAccount: { zh: '登录账号', en: 'Account' },
  labelAttemptIp: { zh: '尝试登录IP', en: 'Attempted from IP' },
  labelAttemptTime: { zh: '尝试登录时间', en: 'Attempted at' },
  labelLoginIp: { zh: '登录IP', en: 'Login IP' },
  labelLoginTime: { zh: '登录时间', en: 'Login time' },
  labelExpireTime: { zh: '密码过期时间', en: 'Password expires at' },
  labelAccountState: { zh: '账号状态', en: 'Account' },
  lockedUntil: {
    zh: '因密码错误次数过多已被锁定,{time}自动解锁',
    en: 'locked after too many wrong passwords until {time}',
  },
  lockedAdvice: {
    zh: '如非本人操作,请在解锁后立即修改密码并联系管理员;如需提前解锁,请联系管理员。',
    en: 'If this was not you, change your password once it is unlocked and tell your administrator; an administrator can unlock it sooner.',
  },
  otpLoginTitle: { zh: '登录验证码', en: 'Your login code' },
  otpResetTitle: { zh: '重置密码验证码', en: 'Your password reset code' },
  otpMfaTitle: { zh: '登录验证码', en: 'Your sign-in verification code' },
  otpConfirmTitle: { zh: '联系方式确认码', en: 'Confirm your new contact details' },
  otpLead: {
    zh: '您的验证码是{code},{minutes}分钟内有效',
    en: 'Your code is {code}; it is valid for {minutes} minutes',
  },
  otpAdvice: {
    zh: '切勿将验证码告诉任何人;如非本人操作,请忽略本消息。',
    en: 'Never tell anyone this code; if you did not ask for it, ignore this message.',
  },
  passwordSelfResetTitle: { zh: '密码已重置', en: 'Your password was reset' },
  passwordSelfResetLead: {
    zh: '您的账号通过验证码重置了密码,所有登录已退出',
    en: 'The password of your account was reset with a one-time code and every session ended',
  },
  passwordSelfResetAdvice: {
    zh: '如非本人操作,请立即联系管理员。',
    en: 'If this was not you, tell your administrator at once.',
  },
  initialPasswordTitle: { zh: '您的账号已创建', en: 'Your account has been created' },
  initialPasswordLead: {
    zh: '管理员为您创建了账号,初始密码如下',
    en: 'An administrator created an account for you; its initial password follows',
  },
  labelInitialPassword: { zh: '初始密码', en: 'Initial password' },
  initialPasswordAdvice: {
    zh: '请尽快登录并修改密码,不要将密码告诉他人。',
    en: 'Log in and change it soon; never tell anyone your password.',
  },
  mailGreeting: { zh: '{name},您好:', en: 'Hello {name},' },
  mailFooter: {
    zh: '此邮件由系统自动发送,请勿直接回复。',
    en: 'This message was sent automatically; please do not reply.',
  },
} satisfies Record<string, Bilingual>;

/** Column headers and value labels of exports for people (`columns: "labels"`), and of the user import template. */
const exportLabel = {
  id: { zh: '编号', en: 'ID' },
  account: { zh: '账号', en: 'Account' },
  userName: { zh: '用户姓名', en: 'Name' },
  loginType: { zh: '登录方式', en: 'Login type' },
  status: { zh: '状态', en: 'Status' },
  ip: { zh: 'IP地址', en: 'IP address' },
  browser: { zh: '浏览器', en: 'Browser' },
  os: { zh: '操作系统', en: 'Operating system' },
  loginTime: { zh: '登录时间', en: 'Login time' },
  failureReason: { zh: '失败原因', en: 'Failure reason' },
  failureCode: { zh: '失败代码', en: 'Failure code' },
  userId: { zh: '操作人编号', en: 'Administrator ID' },
  operator: { zh: '操作人', en: 'Administrator' },
  action: { zh: '操作', en: 'Action' },
  target: { zh: '操作对象编号', en: 'Target ID' },
  targetName: { zh: '操作对象', en: 'Target' },
  detail: { zh: '详情', en: 'Detail' },
  createTime: { zh: '创建时间', en: 'Created' },
  actionTime: { zh: '操作时间', en: 'Time' },
  username: { zh: '用户名', en: 'User name' },
  name: { zh: '姓名', en: 'Name' },
  mobile: { zh: '手机号', en: 'Mobile' },
  email: { zh: '邮箱', en: 'E-mail' },
  roles: { zh: '角色', en: 'Roles' },
  state: { zh: '状态', en: 'State' },
  mfaEnabled: { zh: '双因素认证', en: 'Two-factor' },
  lastLoginTime: { zh: '最后登录时间', en: 'Last login' },
  passwordExpireTime: { zh: '密码过期时间', en: 'Password expires' },
  yes: { zh: '是', en: 'yes' },
  no: { zh: '否', en: 'no' },
  status_success: { zh: '成功', en: 'Success' },
  status_passwrong: { zh: '密码错误', en: 'Wrong password' },
  status_mfawrong: { zh: '动态验证码错误', en: 'Wrong code' },
  status_locked: { zh: '已锁定', en: 'Locked' },
  status_disabled: { zh: '已禁用', en: 'Disabled' },
  status_expired: { zh: '已过期', en: 'Expired' },
  status_denied: { zh: '访问规则拒绝', en: 'Denied by an access rule' },
  type_account: { zh: '账号', en: 'Account' },
  type_mobile: { zh: '手机号', en: 'Mobile' },
  type_email: { zh: '邮箱', en: 'E-mail' },
  type_qrcode: { zh: '授权码', en: 'Code' },
  type_passchange: { zh: '修改密码', en: 'Password change' },
  type_mfa: { zh: '双因素认证', en: 'Two-factor' },
  type_reauth: { zh: '验证身份', en: 'Identity check' },
  type_passkey: { zh: '通行密钥', en: 'Passkey' },
  type_smscode: { zh: '短信验证码', en: 'SMS code' },
  type_emailcode: { zh: '邮件验证码', en: 'E-mail code' },
  type_passreset: { zh: '找回密码', en: 'Password reset' },
  channel_totp: { zh: '动态验证码', en: 'Authenticator code' },
  channel_sms: { zh: '短信验证码', en: 'SMS code' },
  channel_email: { zh: '邮件验证码', en: 'E-mail code' },
  state_normal: { zh: '正常', en: 'Normal' },
  state_locked: { zh: '已锁定', en: 'Locked' },
  state_disabled: { zh: '已禁用', en: 'Disabled' },
  state_expired: { zh: '密码已过期', en: 'Password expired' },
  state_initial: { zh: '初始密码', en: 'Initial password' },
} satisfies Record<string, Bilingual>;

/**
 * The name of each input field in messages (`{label}`): what the console's forms call it. Fields that
 * exports already name take the export's label; `Class.field` entries name a field whose meaning
 * depends on the operation (a role's `name` is not a person's).
 */
const field = {
  account: { zh: '登录账号', en: 'Account' },
  username: exportLabel.username,
  name: { zh: '名称', en: 'Name' },
  'CreateUserDto.name': exportLabel.name,
  'UpdateUserDto.name': exportLabel.name,
  'SaveRoleDto.name': { zh: '角色名称', en: 'Role name' },
  'SaveAccessRuleDto.name': { zh: '规则名称', en: 'Rule name' },
  mobile: exportLabel.mobile,
  email: exportLabel.email,
  roles: exportLabel.roles,
  state: exportLabel.state,
  status: exportLabel.status,
  loginType: exportLabel.loginType,
  ip: exportLabel.ip,
  id: exportLabel.id,
  target: exportLabel.target,
  ids: { zh: '编号列表', en: 'IDs' },
  userId: { zh: '用户编号', en: 'User ID' },
  users: { zh: '用户', en: 'Users' },
  tokenId: { zh: '会话编号', en: 'Session ID' },
  token: { zh: '令牌', en: 'Token' },
  password: { zh: '密码', en: 'Password' },
  oldPass: { zh: '旧密码', en: 'Old password' },
  newPass: { zh: '新密码', en: 'New password' },
  code: { zh: '验证码', en: 'Code' },
  'RoleCodeDto.code': { zh: '角色编码', en: 'Role code' },
  'SaveRoleDto.code': { zh: '角色编码', en: 'Role code' },
  'VerifyQrcodeDto.code': { zh: '授权码', en: 'Code' },
  imgId: { zh: '验证码编号', en: 'Captcha ID' },
  imgCode: { zh: '图形验证码', en: 'Captcha' },
  mfaToken: { zh: '登录凭据', en: 'Login ticket' },
  channel: { zh: '发送渠道', en: 'Channel' },
  purpose: { zh: '用途', en: 'Purpose' },
  permissions: { zh: '权限', en: 'Permissions' },
  keyword: { zh: '关键字', en: 'Keyword' },
  pageNum: { zh: '页码', en: 'Page' },
  pageSize: { zh: '每页条数', en: 'Page size' },
  beginTime: { zh: '开始时间', en: 'From' },
  endTime: { zh: '结束时间', en: 'To' },
  time: { zh: '时间', en: 'Time' },
  action: exportLabel.action,
  'SaveAccessRuleDto.action': { zh: '规则动作', en: 'Rule action' },
  ipRanges: { zh: 'IP范围', en: 'IP ranges' },
  timeWindows: { zh: '时间段', en: 'Time windows' },
  days: { zh: '星期', en: 'Days' },
  start: { zh: '开始时间', en: 'Start' },
  end: { zh: '结束时间', en: 'End' },
  enabled: { zh: '启用', en: 'Enabled' },
  url: { zh: '地址', en: 'URL' },
  events: { zh: '事件', en: 'Events' },
  expiresInDays: { zh: '有效天数', en: 'Days valid' },
  unreadOnly: { zh: '仅未读', en: 'Unread only' },
  file: { zh: '文件', en: 'File' },
  dryRun: { zh: '仅检查', en: 'Check only' },
  format: { zh: '文件格式', en: 'File format' },
  columns: { zh: '列标题', en: 'Column headers' },
  passkey: { zh: '通行密钥', en: 'Passkey' },
  response: { zh: '通行密钥应答', en: 'Passkey answer' },
  challengeId: { zh: '通行密钥挑战编号', en: 'Passkey challenge' },
  body: { zh: '请求体', en: 'The request body' },
  // The strategy page's labels (web/src/i18n/zh.ts, strategy.field), which a test keeps equal.
  sessionExpireMinutes: { zh: '会话有效期', en: 'Session validity' },
  tempSessionExpireMinutes: { zh: '临时会话有效期', en: 'Temporary session validity' },
  sessionMaxHours: { zh: '会话最长时长', en: 'Absolute session lifetime' },
  lockMinutes: { zh: '锁定时长', en: 'Lock duration' },
  maxFailureTimes: { zh: '最大失败次数', en: 'Failures before lock' },
  maxFailureInterval: { zh: '失败统计窗口', en: 'Failure counting window' },
  sendMsgWhenErrorLogin: { zh: '异常登录通知渠道', en: 'Wrong-password notification' },
  sendMsgWhenErrorIp: { zh: '异地登录通知渠道', en: 'Unusual-IP notification' },
  loginStrategyWhenExpire: { zh: '密码过期后的登录行为', en: 'When the password has expired' },
  bindIp: { zh: '绑定登录 IP', en: 'Bind session to IP' },
  multiOnline: { zh: '允许多端同时在线', en: 'Several devices at once' },
  maxSessionsPerUser: { zh: '每个用户最多会话数', en: 'Sessions per user' },
  otpLogin: { zh: '验证码登录', en: 'Log in with a code' },
  mfaChannels: { zh: '第二步验证方式', en: 'Second-step methods' },
  selfServiceReset: { zh: '自助找回密码', en: 'Self-service password reset' },
  mfaMode: { zh: '双因素认证', en: 'Two-factor authentication' },
  reauthMinutes: { zh: '身份验证有效期', en: 'Identity check validity' },
  reauthForAdmin: { zh: '管理操作须验证身份', en: 'Identity check for administration' },
  captchaUnderAttack: { zh: '遭受攻击时启用验证码', en: 'Captcha under attack' },
  attackFailuresPerMinute: { zh: '攻击判定阈值', en: 'Attack threshold' },
  passkeyLogin: { zh: '允许通行密钥登录', en: 'Passkey sign-in' },
  passwordExpireDays: { zh: '密码有效期', en: 'Password validity' },
  expireNotifyDays: { zh: '过期提醒提前天数', en: 'Expiry reminder' },
  minPasswordLength: { zh: '密码最小长度', en: 'Minimum password length' },
  maxPasswordLength: { zh: '密码最大长度', en: 'Maximum password length' },
  includeLowerCase: { zh: '必须包含小写字母', en: 'Lower-case letter required' },
  includeUpperCase: { zh: '必须包含大写字母', en: 'Upper-case letter required' },
  includeNumber: { zh: '必须包含数字', en: 'Digit required' },
  includeSymbol: { zh: '必须包含特殊字符', en: 'Special character required' },
  rejectAccountInPassword: { zh: '禁止包含账号信息', en: 'Refuse account details' },
  rejectCommonPasswords: { zh: '禁止常见弱密码', en: 'Refuse common passwords' },
  passwordHistoryCount: { zh: '禁止重复使用最近密码', en: 'Password history' },
  forceUpdatePassword: { zh: '首次登录强制修改密码', en: 'Force change of initial passwords' },
  dormantDays: { zh: '闲置账号自动禁用', en: 'Disable dormant accounts' },
} satisfies Record<string, Bilingual>;

/**
 * The rule a field breaks, by class-validator's constraint name (validation.pipe.ts): `{label}` is the
 * field's label, `{min}` / `{max}` / `{values}` the rule's own values.
 */
const rule = {
  isDefined: { zh: '请填写{label}', en: '{label} is required' },
  isNotEmpty: { zh: '请填写{label}', en: '{label} is required' },
  isString: { zh: '{label}应为文本', en: '{label} must be text' },
  isInt: { zh: '{label}应为整数', en: '{label} must be a whole number' },
  isNumber: { zh: '{label}应为数字', en: '{label} must be a number' },
  isBoolean: { zh: '{label}应为是或否', en: '{label} must be true or false' },
  isArray: { zh: '{label}应为列表', en: '{label} must be a list' },
  isObject: { zh: '{label}格式不正确', en: '{label} must be an object' },
  isIn: { zh: '{label}应为以下之一: {values}', en: '{label} must be one of {values}' },
  isEnum: { zh: '{label}应为以下之一: {values}', en: '{label} must be one of {values}' },
  min: { zh: '{label}不能小于{min}', en: '{label} must be at least {min}' },
  max: { zh: '{label}不能大于{max}', en: '{label} must be at most {max}' },
  minLength: { zh: '{label}至少{min}个字符', en: '{label} must be at least {min} characters long' },
  maxLength: { zh: '{label}不能超过{max}个字符', en: '{label} must be at most {max} characters long' },
  arrayMinSize: { zh: '{label}至少{min}项', en: '{label} needs at least {min} entries' },
  arrayMaxSize: { zh: '{label}最多{max}项', en: '{label} may hold at most {max} entries' },
  arrayNotEmpty: { zh: '{label}至少1项', en: '{label} needs at least 1 entry' },
  arrayUnique: { zh: '{label}不能有重复项', en: '{label} must not repeat an entry' },
  matches: { zh: '{label}格式不正确', en: '{label} is not in the expected format' },
  isDateString: {
    zh: '{label}应为时间(如2024-01-31T08:00:00Z)',
    en: '{label} must be a time (such as 2024-01-31T08:00:00Z)',
  },
  isIp: { zh: '{label}不是有效的IP地址', en: '{label} must be a valid IP address' },
  unknownField: { zh: '不接受的参数: {field}', en: 'Not an accepted field: {field}' },
  notJsonObject: { zh: '请求体必须是JSON对象', en: 'The request body must be a JSON object' },
  nestedValidation: { zh: '{label}格式不正确', en: '{label} is not in the expected form' },
  withoutCode: { zh: '{label}和验证码不能同时给出', en: '{label} and code cannot both be given' },
  notWithMfaToken: { zh: '有登录凭据时不能给出{label}', en: '{label} must be left out with mfaToken' },
  attestation: {
    zh: '{label}须为浏览器 navigator.credentials.create() 的应答',
    en: '{label} must be the answer of navigator.credentials.create()',
  },
  assertion: {
    zh: '{label}须为浏览器 navigator.credentials.get() 的应答',
    en: '{label} must be the answer of navigator.credentials.get()',
  },
  // A rule the catalogue has no words for: the field is named, the rule is not.
  other: { zh: '{label}不合法', en: '{label} is not valid' },
} satisfies Record<string, Bilingual>;

/** What a field's format rule (`matches`) asks, by `Class.field` or field, where people need it told. */
const fieldFormat = {
  sendMsgWhenErrorLogin: {
    zh: '{label}应为 email、sms、site 中的一项或几项,以逗号分隔',
    en: '{label} must be a comma-separated list of email, sms, site',
  },
  sendMsgWhenErrorIp: {
    zh: '{label}应为 email、sms、site 中的一项或几项,以逗号分隔',
    en: '{label} must be a comma-separated list of email, sms, site',
  },
  mfaToken: { zh: '{label}无效,请重新登录', en: '{label} is not the one of the login result; log in again' },
  challengeId: { zh: '{label}无效,请重试', en: '{label} is not the one just issued; try again' },
  code: { zh: '{label}应为6位数字或恢复码(如ab12-cd34)', en: '{label} must be 6 digits or a recovery code xxxx-xxxx' },
  'TotpCodeDto.code': { zh: '{label}应为6位数字', en: '{label} must be 6 digits' },
  'OtpLoginDto.code': { zh: '{label}应为6位数字', en: '{label} must be 6 digits' },
  'PasswordResetDto.code': { zh: '{label}应为6位数字', en: '{label} must be 6 digits' },
  'SaveRoleDto.code': {
    zh: '{label}应为1到64个字母、数字或 _ : . - 字符',
    en: '{label} must be 1 to 64 letters, digits, _ : . or -',
  },
  'CreateApiKeyDto.name': {
    zh: '{label}应为1到48个字母、数字或 _ . - 字符',
    en: '{label} must be 1 to 48 letters, digits, _ . or -',
  },
  'PasskeyRegisterDto.name': {
    zh: '{label}应为1到64个字符,不含控制字符',
    en: '{label} must be 1 to 64 characters without control characters',
  },
  'PasskeyRenameDto.name': {
    zh: '{label}应为1到64个字符,不含控制字符',
    en: '{label} must be 1 to 64 characters without control characters',
  },
  tokenId: { zh: '{label}应为会话列表中的编号', en: '{label} must be the ID from the session list' },
} satisfies Record<string, Bilingual>;

/** /sys/user/import's refusals of a file or of one of its rows (`data.errors[].row` names the row). */
const userImport = {
  notXlsx: { zh: '文件不是xlsx文件', en: 'The file is not an xlsx file' },
  tooLarge: { zh: '文件不能超过{max}字节', en: 'The file must not exceed {max} bytes' },
  tooManyRows: { zh: '文件最多{max}行用户', en: 'The file may hold at most {max} user rows' },
  noRows: { zh: '文件中没有用户行', en: 'The file has no user rows' },
  missingColumns: {
    zh: '文件缺少列 {columns}(请使用导入模板)',
    en: 'The file lacks the columns {columns} (use the import template)',
  },
  duplicate: { zh: '{field}与第{row}行重复', en: '{field} repeats row {row}' },
  noContact: {
    zh: '手机号和邮箱至少填写一项,初始密码将发送至此',
    en: 'Give a mobile number or an e-mail: the initial password is sent there',
  },
  rolesBeyondCaller: {
    zh: '不能分配超出您自身权限的角色',
    en: 'You cannot give roles beyond your own permissions',
  },
} satisfies Record<string, Bilingual>;

export const TEXTS = {
  error: errors,
  tip: tips,
  validation,
  notification,
  exportLabel,
  userImport,
  field,
  rule,
  fieldFormat,
} as const;

type Group = keyof typeof TEXTS;
/** `group.name`, e.g. `error.BAD_CREDENTIALS`, `tip.PASSWORD_EXPIRES_SOON`, `validation.notUnicode`. */
export type TextKey = { [G in Group]: `${G}.${Extract<keyof (typeof TEXTS)[G], string>}` }[Group];

/** Fills `{name}` placeholders; a value is inserted as it is, never read for placeholders itself. */
export function format(template: string, params?: TextParams): string {
  if (!params) return template;
  return template.replace(/\{(\w+)\}/g, (m, name: string) => (name in params ? String(params[name]) : m));
}

function entryOf(key: TextKey): Bilingual {
  const dot = key.indexOf('.');
  return (TEXTS as Record<string, Record<string, Bilingual>>)[key.slice(0, dot)][key.slice(dot + 1)];
}

/** The text of `key` in `locale`, its placeholders filled from `params`. */
export function text(key: TextKey, locale: Locale, params?: TextParams): string {
  return format(entryOf(key)[locale], params);
}

/** Both languages of `key`, for what is stored or thrown before the reader's locale is known. */
export function bilingual(key: TextKey, params?: TextParams): Bilingual {
  return { zh: text(key, 'zh', params), en: text(key, 'en', params) };
}

/** Zh unless `Accept-Language` starts with en. */
export function localeOf(acceptLanguage: string | string[] | undefined): Locale {
  const header = Array.isArray(acceptLanguage) ? acceptLanguage[0] : acceptLanguage;
  return header && /^\s*en\b/i.test(header) ? 'en' : 'zh';
}

const LABELS: Record<string, Bilingual> = field;

/**
 * The label of an input field for messages: `name` of `CreateUserDto` is 姓名; a path into a list
 * (`timeWindows.0.start`) names the entry. A field the catalogue does not know keeps its name.
 */
export function fieldLabel(path: string, locale: Locale, scope?: string): string {
  const parts = path.split('.');
  const own = (name: string, at?: string) =>
    (at && LABELS[`${at}.${name}`]?.[locale]) ?? LABELS[name]?.[locale] ?? name;
  let label = '';
  for (const [i, part] of parts.entries()) {
    if (/^\d+$/.test(part)) {
      const n = Number(part) + 1;
      label = locale === 'zh' ? `${label}第${n}项` : `${label} entry ${n}`;
    } else {
      const name = own(part, i === 0 ? scope : undefined);
      label = !label ? name : locale === 'zh' ? `${label}的${name}` : `${label}: ${name.toLowerCase()}`;
    }
  }
  return label;
}
