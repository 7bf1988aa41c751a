/** A fixed pause: for "nothing happens within N ms" checks and real-time TTLs; to wait for something, use waitFor. */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export type Truthy<T> = Exclude<T, false | 0 | '' | null | undefined>;

/**
 * Polls `probe` every `everyMs` until it returns something truthy, and returns that; fails naming
 * `what` once `timeoutMs` has passed.
 */
export async function waitFor<T>(
  probe: () => Promise<T> | T,
  what: string,
  timeoutMs = 5000,
  everyMs = 10,
): Promise<Truthy<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as Truthy<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}
