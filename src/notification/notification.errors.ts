/** A short reason for last_error and logs: the error's name and message, never a stack. */
export function reasonOf(err: unknown, max = 500): string {
  const e = err as any;
  const text = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  return text.replace(/\s+/g, ' ').slice(0, max);
}
