/** A mobile number as `138****5678`: the first three and last four digits. */
export function maskMobile(mobile: string): string {
  if (mobile.length <= 7) return `${mobile.slice(0, 1)}****`;
  return `${mobile.slice(0, 3)}****${mobile.slice(-4)}`;
}

/** An e-mail address as `a***@example.com`: the first character of the local part and the domain. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at < 1) return '***';
  return `${email.slice(0, 1)}***${email.slice(at)}`;
}

/** The code that shows mobile numbers and e-mails whole where lists and exports mask them. */
export const PII_CODE = 'sys:user:pii';

/** Whether a caller holding `codes` sees personal data whole. */
export function seesPii(codes: Iterable<string>): boolean {
  const held = new Set(codes);
  // '*': ALL_PERMISSIONS (src/user-account/grants.ts), which grants every code.
  return held.has('*') || held.has(PII_CODE);
}

/** A plain mobile as shown: whole, or `138****5678`. */
export function shownMobile(mobile: string | null, whole: boolean): string | null {
  return mobile === null || whole ? mobile : maskMobile(mobile);
}

/** A plain e-mail as shown: whole, or `a***@example.com`. */
export function shownEmail(email: string | null, whole: boolean): string | null {
  return email === null || whole ? email : maskEmail(email);
}

/** A login log's or session's account as shown: masked when it is a mobile or an e-mail (a user name stays). */
export function shownAccount(account: string, whole: boolean): string {
  if (whole) return account;
  if (account.includes('@')) return maskEmail(account);
  if (/^\+?\d{7,}$/.test(account)) return maskMobile(account);
  return account;
}

type Side = Record<string, unknown> | null;

/**
 * An audit detail `{ …, old, new }` as an entry takes it: `detail` with the mobile and e-mail of both
 * sides masked and, where that masked anything, `piiDetail` whole (shown to holders of PII_CODE only).
 */
export function auditedPii<T extends { old: Side; new: Side }>(whole: T): { detail: T; piiDetail: T | null } {
  let masked = false;
  const mask = (side: Side): Side => {
    if (!side) return side;
    const out = { ...side };
    for (const [field, conceal] of [
      ['mobile', maskMobile],
      ['email', maskEmail],
    ] as const) {
      if (typeof out[field] !== 'string') continue;
      out[field] = conceal(out[field]);
      masked = true;
    }
    return out;
  };
  const detail = { ...whole, old: mask(whole.old), new: mask(whole.new) };
  return { detail, piiDetail: masked ? whole : null };
}
