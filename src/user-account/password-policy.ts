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

// No look-alikes (0 O o, 1 l I): a generated password is read off a message and typed by a person.
const SETS = {
  lower: 'abcdefghijkmnpqrstuvwxyz',
  upper: 'ABCDEFGHJKLMNPQRSTUVWXYZ',
  digit: '23456789',
};
/** Between groups of four; it is also the symbol the rules may ask for. */
const GROUP_SEPARATOR = '-';

/**
 * A random password that passes the current rules, in groups of four joined by `-`
 * (`Kx7m-Qp4a-Tz9c`): letters and digits without look-alikes, at least one of each class, the
 * separators being its symbols. Its length is the shortest whole-group length of at least
 * max(minPasswordLength, 14); where maxPasswordLength allows no whole groups, the last is cut short.
 */
export function generatePassword(rules: ComplexityRules): string {
  const max = rules.maxPasswordLength > 0 ? rules.maxPasswordLength : BCRYPT_MAX_BYTES;
  const target = Math.max(rules.minPasswordLength, 14);
  const groups = Math.ceil((target + 1) / 5);
  const length = Math.min(max, groups * 5 - 1);
  const pick = (set: string) => set[randomInt(set.length)];
  const all = SETS.lower + SETS.upper + SETS.digit;
  const chars: string[] = [];
  for (let i = 0; i < length; i++) chars.push(i % 5 === 4 && i < length - 1 ? GROUP_SEPARATOR : pick(all));
  // One of each class at distinct random places that are not separators.
  const places = chars.map((c, i) => i).filter((i) => chars[i] !== GROUP_SEPARATOR);
  for (const set of [SETS.lower, SETS.upper, SETS.digit]) {
    const at = places.splice(randomInt(places.length), 1)[0];
    chars[at] = pick(set);
  }
  // Too short for a separator (a maximum under 6): a symbol the rules may ask for, at the end.
  if (rules.includeSymbol && !chars.includes(GROUP_SEPARATOR)) chars[chars.length - 1] = GROUP_SEPARATOR;
  return chars.join('');
}
