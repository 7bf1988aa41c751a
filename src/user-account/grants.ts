/** The permission code that grants every permission. */
export const ALL_PERMISSIONS = '*';

/**
 * The codes among `granted` that a caller
 * holding `held` may not hand out. Empty means the grant is allowed. `*` is a code like any
 * other here: only a caller who holds `*` may grant it, and such a caller may grant anything.
 */
export function codesBeyond(held: readonly string[], granted: readonly string[]): string[] {
  if (held.includes(ALL_PERMISSIONS)) return [];
  const mine = new Set(held);
  return [...new Set(granted)].filter((code) => !mine.has(code));
}

export function mayGrant(held: readonly string[], granted: readonly string[]): boolean {
  return codesBeyond(held, granted).length === 0;
}
