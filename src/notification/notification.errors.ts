/** A short reason for last_error and logs: the error's name and message, never a stack. */
export function reasonOf(err: unknown, max = 500): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return text.replace(/\s+/g, ' ').slice(0, max);
}
