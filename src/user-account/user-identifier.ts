import { LoginTypes } from '../login-log/login-log.entity';

/** The fields a user logs in with, in the order a login looks them up. */
export const IDENTIFIER_KINDS = ['username', 'mobile', 'email'] as const;
export type IdentifierKind = (typeof IDENTIFIER_KINDS)[number];

export const LOGIN_TYPE_OF: Record<IdentifierKind, LoginTypes> = {
  username: LoginTypes.ACCOUNT,
  mobile: LoginTypes.MOBILE,
  email: LoginTypes.EMAIL,
};

export interface Identifier {
  kind: IdentifierKind;
  value: string;
}

/**
 * The form an identifier is stored, compared and looked up in. NFKC, so that the
 * full-width `ＡＤＭＩＮ` is `ADMIN` and an NFD `é` (e and a combining accent) is the one character `é`:
 * forms a person cannot tell apart on screen are one value.
 */
export function nfkc(raw: string): string {
  return raw.normalize('NFKC');
}

/**
 * User names and e-mails compare case-insensitively, with no accent folding
 * (`Admin` = `admin`, `José` ≠ `Jose`); mobiles compare exactly; all of them after
 * NFKC. The folding is JavaScript's locale-independent toLowerCase, done here and nowhere else, so
 * that SQLite and MariaDB (whose own collations fold differently) only ever compare the folded
 * bytes; NFKC again after it, because lower-casing can leave a string that is not in NFKC.
 */
export function normaliseIdentifier(kind: IdentifierKind, raw: string): string {
  const value = nfkc(raw);
  return kind === 'mobile' ? value : nfkc(value.toLowerCase());
}

/**
 * Characters an identifier may not hold — controls, format characters (zero-width,
 * bidirectional overrides) and the other invisible ones, and white space — because they make a
 * value that looks like another one on screen.
 */
const HIDDEN_OR_SPACE = /[\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}\p{White_Space}]/u;
/** What a display name may not hold (spaces are fine there). */
const CONTROL_OR_FORMAT = /[\p{Cc}\p{Cf}]/u;
/** Scripts whose letters pass for one another (Latin `a`, Cyrillic `а`, Greek `α`). */
const CONFUSABLE_SCRIPTS = [/\p{Script=Latin}/u, /\p{Script=Cyrillic}/u, /\p{Script=Greek}/u];

export const hasHiddenOrSpace = (value: string): boolean => HIDDEN_OR_SPACE.test(value);
export const hasControlOrFormat = (value: string): boolean => CONTROL_OR_FORMAT.test(value);

/**
 * An e-mail whose local part or domain mixes Latin, Cyrillic or Greek letters
 * (`аdmin@example.com` with a Cyrillic `а` looks like the Latin one).
 */
export function mixesScripts(email: string): boolean {
  const at = email.lastIndexOf('@');
  const parts = at < 0 ? [email] : [email.slice(0, at), email.slice(at + 1)];
  return parts.some((part) => CONFUSABLE_SCRIPTS.filter((script) => script.test(part)).length > 1);
}

/**
 * The identifiers a user holds: one per field that is set. Uniqueness forbids equality with
 * another user's identifiers only, so a user name may equal the same user's mobile (a common
 * set-up); the value is then held once, by the first kind in the lookup order,
 * which is also what a login by it matches first.
 */
export function identifiersOf(user: { username: string; mobile?: string | null; email?: string | null }): Identifier[] {
  const held: Identifier[] = [];
  for (const kind of IDENTIFIER_KINDS) {
    const raw = user[kind];
    if (raw === null || raw === undefined || raw === '') continue;
    const value = normaliseIdentifier(kind, raw);
    if (!held.some((i) => i.value === value)) held.push({ kind, value });
  }
  return held;
}

/**
 * What a login `account` matches among the stored identifiers, in the lookup order
 * (user name, then mobile, then e-mail); the kind is the log's login type.
 */
export function matchLogin<T extends Identifier>(account: string, stored: T[]): T | undefined {
  for (const kind of IDENTIFIER_KINDS) {
    const value = normaliseIdentifier(kind, account);
    const hit = stored.find((s) => s.kind === kind && s.value === value);
    if (hit) return hit;
  }
  return undefined;
}

/** The values to look up for a login `account`: every normalisation of it. */
export function loginCandidates(account: string): string[] {
  return [...new Set(IDENTIFIER_KINDS.map((kind) => normaliseIdentifier(kind, account)))];
}
