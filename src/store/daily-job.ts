import { KeyedMutex } from './keyed-mutex';

/**
 * One instance of a cluster at a time: the pass runs while this instance holds `key` in the
 * KeyedMutex every instance shares (its lease renewed while the pass runs, so a slow database
 * never hands the key to a second instance); an instance that finds it taken skips the pass
 * without waiting, since the holder does the day's work.
 */
export interface ClusterTurn {
  mutex: KeyedMutex;
  key: string;
  /** Omitted: the mutex's default lease. */
  leaseMs?: number;
  /** Told when another instance holds the turn, for jobs that log the skip. */
  onTaken?: () => void;
}

export interface DailyJobOptions<T> {
  /** What a call that does no work resolves to: after stop(), or when another instance has the turn. */
  idle: T;
  /**
   * A call while this instance's pass is in flight: 'share' resolves with that pass (its result is
   * the caller's too), 'skip' resolves to `idle` at once (the job's contract reports the caller's
   * own pass only, and a second one would find the turn taken anyway).
   */
  overlap: 'share' | 'skip';
  turn?: ClusterTurn;
}

/**
 * The scaffold of the daily jobs (dormant accounts, log retention, password-expiry reminders):
 * one pass in flight per instance, optionally one per cluster, and none started or kept going
 * once the application closes, because the database it works on is closing too.
 *
 * Held by the service rather than inherited: the @Cron and @Timeout methods stay on the service,
 * where @nestjs/schedule finds them, and each service's onModuleDestroy keeps saying why it waits.
 */
export class DailyJob<T> {
  private stopping = false;
  private running: Promise<T> | null = null;

  constructor(private readonly options: DailyJobOptions<T>) {}

  /** Long passes check it between statements and stop early: the closing database must not see a half-sent one. */
  get stopped(): boolean {
    return this.stopping;
  }

  run(pass: () => Promise<T>): Promise<T> {
    if (this.stopping) return Promise.resolve(this.options.idle);
    if (this.running) return this.options.overlap === 'share' ? this.running : Promise.resolve(this.options.idle);
    const running = this.inTurn(pass).finally(() => {
      this.running = null;
    });
    this.running = running;
    return running;
  }

  /** From onModuleDestroy: no pass starts after it, and it returns once the pass in flight has ended, however it ended. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.running?.catch(() => undefined);
  }

  private async inTurn(pass: () => Promise<T>): Promise<T> {
    const turn = this.options.turn;
    if (!turn) return pass();
    const outcome = await turn.mutex.tryRun(turn.key, pass, turn.leaseMs);
    if (outcome.ran) return outcome.value;
    turn.onTaken?.();
    return this.options.idle;
  }
}
