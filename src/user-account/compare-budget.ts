import { AppException } from '../common/app.exception';
import { ErrorCode } from '../common/error-code';

/** A compare that would have waited longer than LOGIN_QUEUE_MS: SERVICE_UNAVAILABLE with Retry-After. */
export class CompareShed extends AppException {
  constructor(retryAfterSeconds: number) {
    super(ErrorCode.SERVICE_UNAVAILABLE);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

export interface CompareBudgetOptions {
  /** Compares running at once (BCRYPT_CONCURRENCY). */
  concurrency: number;
  /**
   * Compares running at once during a flood (FLOOD_SHEDS shed within FLOOD_WINDOW_MS): one core
   * fewer than `concurrency`, at least one, unless given.
   */
  floodConcurrency?: number;
  /** The longest a compare may wait for its turn (LOGIN_QUEUE_MS). */
  queueMs: number;
  /** Milliseconds now (the injected clock). */
  now: () => number;
  /** A first guess of one compare's length, replaced by what compares take as they finish. */
  compareMs: number;
  /** Told of every shed compare. */
  onShed?: () => void;
}

interface Waiter {
  enqueuedAt: number;
  start: () => void;
  shed: (err: CompareShed) => void;
}

/** Weight of the newest compare in the running mean of compare lengths. */
const ALPHA = 0.2;
/**
 * A flood: FLOOD_SHEDS compares shed within one FLOOD_WINDOW_MS. A burst of real logins sheds one
 * or two now and then; a flood sheds dozens a second. The budget runs at its flood concurrency until
 * a window has passed without one.
 */
export const FLOOD_WINDOW_MS = 10_000;
export const FLOOD_SHEDS = 20;

/**
 * The compare budget: at most `concurrency` compares run at once; the others wait in lanes, one
 * lane per account as the client named it, served in turn, so that one account's many parallel
 * logins (a shared service account) take one turn per round and never starve the others.
 *
 * Compares of clients known good (an account and IP that logged in before, TrustedClients) wait in
 * a priority line that takes turns with the lanes, and are shed only by what waits in that line and
 * as many lane waiters: a flood of strangers fills the lanes, not the way in of the account's usual
 * users.
 *
 * A compare that would wait longer than `queueMs` is shed at once (CompareShed) rather than join a
 * queue that makes every login late: its wait is estimated from the compares ahead of it and the
 * mean length of the last compares. One that was admitted but still waits past the bound when its
 * turn comes (its lane was long) is shed then. A shed compare never ran, so it proves nothing and
 * counts toward no lock. docs/operations.md says what clients see.
 *
 * During a flood (FLOOD_SHEDS), one compare fewer runs at once, so that the event loop (every other
 * request) and the flood's own answers keep a core.
 */
export class CompareBudget {
  private running = 0;
  /** Waiters in the lanes (not the priority line). */
  private queued = 0;
  /** Compares of clients known good (TrustedClients), taking turns with the lanes. */
  private readonly priority: Waiter[] = [];
  /** The last compare started from a waiting line came from the priority line (they take turns with the lanes). */
  private lastFromPriority = false;
  /** Lanes with waiters, in the order they are served (a served lane with more goes to the back). */
  private readonly lanes = new Map<string, Waiter[]>();
  private meanMs: number;
  private readonly floodConcurrency: number;
  /** The window sheds are counted in, from its first shed (the injected clock's milliseconds). */
  private windowStart = -Infinity;
  private shedInWindow = 0;
  /** Flood concurrency until then. */
  private floodUntil = -Infinity;

  constructor(private readonly options: CompareBudgetOptions) {
    this.meanMs = options.compareMs;
    this.floodConcurrency = options.floodConcurrency ?? Math.max(1, options.concurrency - 1);
  }

  /** Whether compares are being shed as in a flood (FLOOD_SHEDS within FLOOD_WINDOW_MS), and since less than a window. */
  flooding(): boolean {
    return this.options.now() < this.floodUntil;
  }

  /** Compares that may run at once now: fewer during a flood. */
  concurrency(): number {
    return this.flooding() ? this.floodConcurrency : this.options.concurrency;
  }

  /** What a compare arriving now would wait, in milliseconds (`priority`: in the priority line). */
  expectedWaitMs(priority = false): number {
    // In the priority line, behind those already there and the lane waiters that take turns with them.
    const ahead = priority
      ? this.priority.length + Math.min(this.queued, this.priority.length + 1)
      : this.priority.length + this.queued;
    const concurrency = this.concurrency();
    if (this.running < concurrency && ahead === 0) return 0;
    return Math.ceil((ahead + 1) / concurrency) * this.meanMs;
  }

  /** A compare arriving now would be shed: thrown before any work is spent on the attempt. */
  assertRoom(priority = false): void {
    const wait = this.expectedWaitMs(priority);
    if (wait > this.options.queueMs) throw this.shed(wait);
  }

  /**
   * Runs `work` (one compare) within the budget, in `lane`'s turn, or in the priority line with
   * `priority`; CompareShed when it would wait too long. `lengthOf`: how long the compare itself
   * took, as its worker measured it; without it, from start to answer, which also counts how late a
   * busy event loop reads the answer and would make the budget shed for a lag that is not the
   * compares'.
   */
  async run<T>(lane: string, work: () => Promise<T>, priority = false, lengthOf?: (result: T) => number): Promise<T> {
    if (this.running >= this.concurrency() || this.queued > 0 || this.priority.length > 0) {
      this.assertRoom(priority);
      await new Promise<void>((start, shed) => {
        const waiter: Waiter = { enqueuedAt: this.options.now(), start, shed };
        if (priority) {
          this.priority.push(waiter);
          return;
        }
        const line = this.lanes.get(lane);
        if (line) line.push(waiter);
        else this.lanes.set(lane, [waiter]);
        this.queued += 1;
      });
    } else {
      this.running += 1;
    }
    const started = this.options.now();
    let length: number | undefined;
    try {
      const result = await work();
      length = lengthOf?.(result);
      return result;
    } finally {
      length ??= this.options.now() - started;
      this.meanMs = (1 - ALPHA) * this.meanMs + ALPHA * Math.max(1, length);
      this.running -= 1;
      this.next();
    }
  }

  /** Starts the next waiter in turn; those that waited past the bound are shed on the way. */
  private next(): void {
    while (this.running < this.concurrency() && this.queued + this.priority.length > 0) {
      const waiter = this.nextWaiter();
      const waited = this.options.now() - waiter.enqueuedAt;
      if (waited > this.options.queueMs) {
        waiter.shed(this.shed(this.expectedWaitMs()));
        continue;
      }
      this.running += 1;
      waiter.start();
    }
  }

  /**
   * The priority line and the lanes take turns while both have waiters: known-good clients wait
   * behind one stranger at most, and a steady stream of them (the accounts that log in all day from
   * their usual IPs) cannot starve a new device's login until it is shed.
   */
  private nextWaiter(): Waiter {
    const fromPriority = this.priority.length > 0 && (this.queued === 0 || !this.lastFromPriority);
    this.lastFromPriority = fromPriority;
    return fromPriority ? this.priority.shift()! : this.fromLanes();
  }

  /** The first waiter of the lane whose turn it is; the lane goes to the back while it has more. */
  private fromLanes(): Waiter {
    const [lane, line] = this.lanes.entries().next().value as [string, Waiter[]];
    const waiter = line.shift()!;
    this.lanes.delete(lane);
    if (line.length) this.lanes.set(lane, line);
    this.queued -= 1;
    return waiter;
  }

  private shed(waitMs: number): CompareShed {
    const now = this.options.now();
    if (now - this.windowStart >= FLOOD_WINDOW_MS) {
      this.windowStart = now;
      this.shedInWindow = 0;
    }
    this.shedInWindow += 1;
    if (this.shedInWindow >= FLOOD_SHEDS) this.floodUntil = now + FLOOD_WINDOW_MS;
    this.options.onShed?.();
    return new CompareShed(Math.min(30, Math.max(1, Math.ceil(waitMs / 1_000))));
  }
}
