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
