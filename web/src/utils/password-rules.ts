import type { PasswordRules } from '@/api/strategy';

/**
 * The six complexity rules in the service's order, with its character classes
 * (src/user-account/password-policy.ts), for the live checklist only: the service decides, and its
 * message is shown.
 */
export interface RuleCheck {
  key: 'min' | 'max' | 'bytes' | 'digit' | 'upper' | 'lower' | 'symbol' | 'account';
  n?: number;
  ok: boolean;
}

/** Who is changing the password: the parts the account check looks for (user name, mobile, e-mail local part). */
export interface AccountParts {
  username?: string | null;
  mobile?: string | null;
  email?: string | null;
}

/** Values of fewer characters are not looked for. */
const ACCOUNT_PART_MIN = 3;

/** The user name, the mobile number and the e-mail before `@`, lower-cased, those of 3 characters or more. */
export function accountParts(who: AccountParts): string[] {
  const email = who.email ?? '';
  const at = email.indexOf('@');
  return [who.username ?? '', who.mobile ?? '', at >= 0 ? email.slice(0, at) : email]
    .map((p) => p.toLowerCase())
    .filter((p) => [...p].length >= ACCOUNT_PART_MIN);
}

/** Checks the console cannot run (the list and the history live on the server): listed, decided on save. */
export interface OnSaveRule {
  key: 'common' | 'history';
  n?: number;
}

export function onSaveRules(rules: PasswordRules): OnSaveRule[] {
  const list: OnSaveRule[] = [];
  if (rules.rejectCommonPasswords) list.push({ key: 'common' });
  if (rules.passwordHistoryCount) list.push({ key: 'history', n: rules.passwordHistoryCount });
  return list;
}

const BCRYPT_MAX_BYTES = 72;
const SYMBOL = /[^\p{L}0-9\s]/u;

export function checkRules(password: string, rules: PasswordRules, who: AccountParts = {}): RuleCheck[] {
  const length = [...password].length;
  const checks: RuleCheck[] = [];
  if (rules.minPasswordLength > 0)
    checks.push({ key: 'min', n: rules.minPasswordLength, ok: length >= rules.minPasswordLength });
  // BCrypt reads 72 bytes: the service refuses more as too long, whatever maxPasswordLength says.
  const fitsBcrypt = new TextEncoder().encode(password).length <= BCRYPT_MAX_BYTES;
  if (rules.maxPasswordLength > 0) {
    checks.push({ key: 'max', n: rules.maxPasswordLength, ok: length <= rules.maxPasswordLength && fitsBcrypt });
  } else if (!fitsBcrypt) {
    checks.push({ key: 'bytes', ok: false });
  }
  if (rules.includeNumber) checks.push({ key: 'digit', ok: /[0-9]/.test(password) });
  if (rules.includeUpperCase) checks.push({ key: 'upper', ok: /[A-Z]/.test(password) });
  if (rules.includeLowerCase) checks.push({ key: 'lower', ok: /[a-z]/.test(password) });
  if (rules.includeSymbol) checks.push({ key: 'symbol', ok: SYMBOL.test(password) });
  // After the six rules: case-insensitive, as the service compares.
  if (rules.rejectAccountInPassword) {
    const lower = password.toLowerCase();
    checks.push({ key: 'account', ok: !accountParts(who).some((p) => lower.includes(p)) });
  }
  return checks;
}
