/** How many pairs one instance remembers; the oldest used are forgotten first. */
const CAPACITY = 10_000;
/** A pair is forgotten this long after its last successful login. */
const TTL_MS = 30 * 86_400_000;

/**
 * Pairs of account (as typed, lower case) and client IP that logged in successfully with a
 * password on this instance: their compares go ahead of a flood's (CompareBudget's priority line).
 * Memory only, per instance, bounded: no store round trip is spent on a flood's attempts, and a
 * pair another instance saw is simply not known here. Only someone who holds the account's name
 * and sends from an IP it logged in from gets the priority, so it tells a stranger nothing.
 */
export class TrustedClients {
  private readonly pairs = new Map<string, number>();

  add(account: string, ip: string, nowMs: number): void {
    const key = keyOf(account, ip);
    this.pairs.delete(key);
    this.pairs.set(key, nowMs + TTL_MS);
    if (this.pairs.size > CAPACITY) this.pairs.delete(this.pairs.keys().next().value as string);
  }

  has(account: string, ip: string, nowMs: number): boolean {
    const key = keyOf(account, ip);
    const until = this.pairs.get(key);
    if (until === undefined) return false;
    if (until > nowMs) return true;
    this.pairs.delete(key);
    return false;
  }
}

const keyOf = (account: string, ip: string) => `${account.trim().toLowerCase()}\n${ip}`;
