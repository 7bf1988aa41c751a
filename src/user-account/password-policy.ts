import { randomInt } from 'node:crypto';

import { AppException } from '../common/app.exception';
import { ErrorCode } from '../common/error-code';
import { ComplexityRules } from '../strategy/strategy.types';

/** BCrypt reads at most 72 bytes. */
export const BCRYPT_MAX_BYTES = 72;

const DIGIT = /[0-9]/;
const UPPER = /[A-Z]/;
const LOWER = /[a-z]/;
// A symbol is any character that is not a letter, not a digit and not white space.
const SYMBOL = /[^\p{L}0-9\s]/u;

/** The complexity check, in its order; the first failure is reported. */
export function checkPasswordComplexity(password: string, rules: ComplexityRules): void {
  const length = [...password].length;
  if (rules.minPasswordLength > 0 && length < rules.minPasswordLength) {
    throw new AppException(ErrorCode.PASSWORD_TOO_SHORT, { min: rules.minPasswordLength });
  }
  const max = rules.maxPasswordLength > 0 ? rules.maxPasswordLength : BCRYPT_MAX_BYTES;
  if (
    (rules.maxPasswordLength > 0 && length > rules.maxPasswordLength) ||
    Buffer.byteLength(password, 'utf8') > BCRYPT_MAX_BYTES
  ) {
    throw new AppException(ErrorCode.PASSWORD_TOO_LONG, { max });
  }
  if (rules.includeNumber && !DIGIT.test(password)) throw new AppException(ErrorCode.PASSWORD_NEEDS_DIGIT);
  if (rules.includeUpperCase && !UPPER.test(password)) throw new AppException(ErrorCode.PASSWORD_NEEDS_UPPER);
  if (rules.includeLowerCase && !LOWER.test(password)) throw new AppException(ErrorCode.PASSWORD_NEEDS_LOWER);
  if (rules.includeSymbol && !SYMBOL.test(password)) throw new AppException(ErrorCode.PASSWORD_NEEDS_SYMBOL);
}

const SETS = {
  lower: 'abcdefghijkmnpqrstuvwxyz',
  upper: 'ABCDEFGHJKLMNPQRSTUVWXYZ',
  digit: '23456789',
  symbol: '!@#$%^&*-_=+?',
};

/** A random password that passes the current rules: one of every class that is required (and all four in general). */
export function generatePassword(rules: ComplexityRules): string {
  const max = rules.maxPasswordLength > 0 ? rules.maxPasswordLength : BCRYPT_MAX_BYTES;
  const length = Math.min(max, Math.max(rules.minPasswordLength, 14, 4));
  const pick = (set: string) => set[randomInt(set.length)];
  const chars = [pick(SETS.lower), pick(SETS.upper), pick(SETS.digit), pick(SETS.symbol)];
  const all = SETS.lower + SETS.upper + SETS.digit + SETS.symbol;
  while (chars.length < length) chars.push(pick(all));
  for (let i = chars.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [chars[i], chars[j]] = [chars[j], chars[i]];
  }
  return chars.slice(0, length).join('');
}
