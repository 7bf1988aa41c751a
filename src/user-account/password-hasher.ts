import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import * as bcrypt from 'bcrypt';

import { Clock } from '../common/clock';
import { AppConfig } from '../config/app-config';
import { CompareBudget } from './compare-budget';
import { ComparePool } from './compare-pool';

/** A password compare was shed (CompareBudget): counted in metrics, never toward a lock. */
export class CompareShedEvent {
  static readonly NAME = 'password.compare.shed';
}

/** Port around BCrypt: salted hashes, compared by matching. */
export abstract class PasswordHasher {
  abstract hash(plain: string): Promise<string>;
  /**
   * `lane`: whose compare it is (the account as the client named it, or its id); compares wait
   * for the pool in turns of lanes (CompareBudget). SERVICE_UNAVAILABLE (CompareShed) when the
   * compare would wait too long.
   */
  abstract matches(plain: string, hash: string, lane?: string, priority?: boolean): Promise<boolean>;
  /** Spends the time of one compare, so that unknown or locked accounts answer as slowly as known ones. */
  abstract burn(plain: string, lane?: string, priority?: boolean): Promise<void>;
  /**
   * Throws CompareShed when a compare arriving now would be shed: before any work is spent on a
   * login. `priority`: a client known good (TrustedClients), whose compare waits in the priority line.
   */
  assertRoom(_priority?: boolean): void {}
  /** Compares are being shed as in a flood (CompareBudget.flooding). */
  flooding(): boolean {
    return false;
  }
}

/** How often the log says how many compares were shed (a flood sheds many a second). */
const SHED_LOG_EVERY_MS = 10_000;

@Injectable()
export class BcryptPasswordHasher extends PasswordHasher implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('PasswordHasher');
  private dummyHash: string;
  private pool: ComparePool;
  private budget: CompareBudget;
  private shedSinceLog = 0;
  private lastShedLog = 0;

  constructor(
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly events: EventEmitter2,
  ) {
    super();
  }

  async onModuleInit() {
    this.dummyHash = await bcrypt.hash('dummy-password-for-timing', this.config.BCRYPT_COST);
    this.pool = new ComparePool(this.config.BCRYPT_CONCURRENCY);
    // Timed on the worker: a fresh worker's start is not a compare's length.
    const { ms } = await this.pool.compare('dummy-password-for-timing', this.dummyHash);
    this.budget = new CompareBudget({
      concurrency: this.config.BCRYPT_CONCURRENCY,
      queueMs: this.config.LOGIN_QUEUE_MS,
      now: () => this.clock.nowMs(),
      compareMs: ms,
      onShed: () => this.shed(),
    });
  }

  /**
   * Not at module destroy: Nest runs those hooks before the HTTP server stops and drains its
   * handlers, and the logins a stop lets finish still need their compare.
   */
  async onApplicationShutdown() {
    await this.pool?.close();
  }

  hash(plain: string) {
    return bcrypt.hash(plain, this.config.BCRYPT_COST);
  }

  matches(plain: string, hash: string, lane = '', priority = false) {
    return this.compare(plain, hash, lane, priority);
  }

  async burn(plain: string, lane = '', priority = false) {
    await this.compare(plain, this.dummyHash, lane, priority);
  }

  private async compare(plain: string, hash: string, lane: string, priority: boolean): Promise<boolean> {
    const { ok } = await this.budget.run(
      lane,
      () => this.pool.compare(plain, hash),
      priority,
      (result) => result.ms,
    );
    return ok;
  }

  override assertRoom(priority = false) {
    this.budget.assertRoom(priority);
  }

  override flooding() {
    return this.budget.flooding();
  }

  private shed() {
    this.events.emit(CompareShedEvent.NAME, new CompareShedEvent());
    this.shedSinceLog += 1;
    const now = this.clock.nowMs();
    if (now - this.lastShedLog < SHED_LOG_EVERY_MS) return;
    this.logger.warn(
      `${this.shedSinceLog} password compare(s) shed: they would have waited over LOGIN_QUEUE_MS (${this.config.LOGIN_QUEUE_MS} ms)`,
    );
    this.shedSinceLog = 0;
    this.lastShedLog = now;
  }
}
