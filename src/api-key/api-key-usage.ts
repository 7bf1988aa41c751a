import { BeforeApplicationShutdown, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';

import { Clock } from '../common/clock';
import { ApiKeyRepository } from './api-key.repository';

/** How often each instance writes the last-used times it collected. */
const FLUSH_MS = 30_000;

/**
 * When each key was last used, kept in memory and written in batches — one UPDATE per key used
 * since the last batch, every FLUSH_MS, before a list answers and when the instance stops — so a
 * request with a key never waits for a write. Each write only moves the time forward, so instances
 * flushing in any order keep the latest.
 */
@Injectable()
export class ApiKeyUsage implements OnModuleInit, OnModuleDestroy, BeforeApplicationShutdown {
  private readonly logger = new Logger('ApiKeys');
  private pending = new Map<string, Date>();
  private flushing: Promise<void> = Promise.resolve();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly rows: ApiKeyRepository,
    private readonly clock: Clock,
  ) {}

  onModuleInit() {
    this.timer = setInterval(() => void this.flush(), FLUSH_MS);
    this.timer.unref();
  }

  onModuleDestroy() {
    clearInterval(this.timer);
  }

  /** The database is still open here (it closes at application shutdown). */
  async beforeApplicationShutdown() {
    await this.flush();
  }

  touch(id: string): void {
    this.pending.set(id, this.clock.now());
  }

  /** Writes what was collected; resolves once every earlier flush is written too. Never rejects. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.write());
    return this.flushing;
  }

  private async write(): Promise<void> {
    if (!this.pending.size) return;
    const batch = this.pending;
    this.pending = new Map();
    let failed = 0;
    for (const [id, at] of batch) {
      try {
        await this.rows.touch(id, at);
      } catch {
        failed += 1;
        // Kept for the next batch, unless the key was used again meanwhile (a later time).
        if (!this.pending.has(id)) this.pending.set(id, at);
      }
    }
    if (failed) this.logger.warn(`could not write the last-used time of ${failed} API key(s); retried later`);
  }
}
