import type { PasswordRules } from '@/api/strategy';

/**
 * The complexity rules of spec 4.3 in their order, with the character classes of
 * contract §2, for the live checklist only: the service decides, and its message is shown.
 */
export interface RuleCheck {
  key: 'min' | 'max' | 'bytes' | 'digit' | 'upper' | 'lower' | 'symbol';
  n?: number;
  ok: boolean;
}

const BCRYPT_MAX_BYTES = 72;
const SYMBOL = /[^\p{L}0-9\s]/u;

export function checkRules(password: string, rules: PasswordRules): RuleCheck[] {
  const length = [...password].length;
  const checks: RuleCheck[] = [];
  if (rules.minPasswordLength > 0) checks.push({ key: 'min', n: rules.minPasswordLength, ok: length >= rules.minPasswordLength });
  // BCrypt reads 72 bytes: the service refuses more as too long, whatever maxPasswordLength says (contract §2).
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
  return checks;
}
