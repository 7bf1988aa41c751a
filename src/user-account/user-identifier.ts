import { LoginTypes } from '../login-log/login-log.entity';

/** The fields a user logs in with, in the lookup order of contract §5. */
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
 * Contract §11: user names and e-mails compare case-insensitively, with no accent folding
 * (`Admin` = `admin`, `José` ≠ `Jose`); mobiles compare exactly. The folding is JavaScript's
 * locale-independent toLowerCase, done here and nowhere else, so that SQLite and MariaDB
 * (whose own collations fold differently) only ever compare the folded bytes.
 */
export function normaliseIdentifier(kind: IdentifierKind, raw: string): string {
  return kind === 'mobile' ? raw : raw.toLowerCase();
}

/**
 * The identifiers a user holds: one per field that is set. Contract §11 forbids equality with
 * another user's identifiers only, so a user name may equal the same user's mobile (a common
 * set-up); the value is then held once, by the first kind in the lookup order of contract §5,
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
 * What a login `account` matches among the stored identifiers, in the lookup order of contract §5
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
