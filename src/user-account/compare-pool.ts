import { Worker } from 'node:worker_threads';

import { Logger } from '@nestjs/common';

/**
 * How much nicer than the event loop a compare thread runs (Linux nice, per thread): with the
 * cores busy, the event loop (sessions, /sys/me/info) gets the CPU first and compares take what
 * is left; on an idle machine compares use every core as before. docs/benchmarks.md measures it.
 */
export const COMPARE_NICE = 5;

/**
 * The worker's whole program: BCrypt's synchronous compare on the worker's own thread, answered with
 * how long it took there (not counting how long the event loop then takes to read the answer).
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const bcrypt = require(workerData.bcrypt);
try { require('node:os').setPriority(workerData.nice); } catch {}
parentPort.on('message', ({ plain, hash }) => {
  let ok = false;
  const started = performance.now();
  try { ok = bcrypt.compareSync(plain, hash); } catch {}
  parentPort.postMessage({ ok, ms: performance.now() - started });
});
`;

/** A compare's outcome and how long BCrypt took on its worker, in milliseconds. */
export interface CompareResult {
  ok: boolean;
  ms: number;
}

/** A compare asked for and not yet answered. */
interface Task {
  job: { plain: string; hash: string };
  resolve: (result: CompareResult) => void;
  reject: (err: Error) => void;
  /** Already run again once because its worker died during it. */
  retried: boolean;
}

/**
 * A worker's heap: it holds bcrypt and one compare's strings, so small limits cost it nothing and
 * keep the process a little smaller (docs/benchmarks.md, compare workers). Should one still run
 * out, it dies and is replaced like any other worker that dies.
 */
const WORKER_LIMITS = { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 16 };
/** Workers that die one after the other without answering a compare are not replaced past this. */
const DEATHS_IN_A_ROW_MAX = 5;

/**
 * BCrypt compares on worker threads of their own, each at COMPARE_NICE (a libuv pool thread, where
 * bcrypt's async compare runs, shares its priority with the event loop and with file and DNS work).
 * The caller (CompareBudget) never runs more compares at once than there are workers; should it,
 * the extra ones wait here for a worker. A worker that dies is replaced, and the compare it was
 * running runs again on the replacement (once): without that, the compare would never answer and
 * the login behind it, and every login that later drew the dead worker, would hang.
 */
export class ComparePool {
  private readonly idle: Worker[] = [];
  private readonly all = new Set<Worker>();
  /** The one compare each busy worker runs. */
  private readonly busy = new Map<Worker, Task>();
  private readonly queue: Task[] = [];
  private deathsInARow = 0;
  private closed = false;
  private readonly logger = new Logger('PasswordHasher');

  constructor(size: number) {
    for (let i = 0; i < size; i += 1) this.idle.push(this.spawn());
  }

  compare(plain: string, hash: string): Promise<CompareResult> {
    return new Promise<CompareResult>((resolve, reject) => {
      if (this.closed || this.all.size === 0) {
        reject(new Error(this.closed ? 'the compare pool is closed' : 'no compare worker is left'));
        return;
      }
      this.queue.push({ job: { plain, hash }, resolve, reject, retried: false });
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const task of this.queue.splice(0)) task.reject(new Error('the compare pool is closed'));
    await Promise.all([...this.all].map((w) => w.terminate()));
  }

  private spawn(): Worker {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { bcrypt: require.resolve('bcrypt'), nice: COMPARE_NICE },
      resourceLimits: WORKER_LIMITS,
    });
    worker.unref();
    worker.on('message', (result: CompareResult) => {
      const task = this.busy.get(worker);
      this.busy.delete(worker);
      this.deathsInARow = 0;
      this.idle.push(worker);
      task?.resolve(result);
      this.dispatch();
    });
    // An error is always followed by the worker's exit, which replaces it; the error only names why.
    let why = '';
    worker.on('error', (err: Error & { code?: string }) => {
      why = err.code ?? err.name;
    });
    worker.once('exit', (code) => this.replace(worker, why || `exit code ${code}`));
    this.all.add(worker);
    return worker;
  }

  private dispatch(): void {
    while (this.idle.length && this.queue.length) {
      const worker = this.idle.pop()!;
      const task = this.queue.shift()!;
      this.busy.set(worker, task);
      worker.postMessage(task.job);
    }
  }

  private replace(dead: Worker, why: string): void {
    this.all.delete(dead);
    const at = this.idle.indexOf(dead);
    if (at >= 0) this.idle.splice(at, 1);
    const task = this.busy.get(dead);
    this.busy.delete(dead);
    if (this.closed) {
      task?.reject(new Error('the compare pool is closed'));
      return;
    }
    if (task && !task.retried) {
      task.retried = true;
      this.queue.unshift(task);
    } else {
      task?.reject(new Error('a compare worker died twice during one compare'));
    }
    this.deathsInARow += 1;
    const replaced = this.deathsInARow <= DEATHS_IN_A_ROW_MAX;
    this.logger.warn(
      `a password compare worker stopped (${why}); ${replaced ? 'replaced' : `not replaced: ${this.deathsInARow} stopped in a row`}`,
    );
    if (replaced) this.idle.push(this.spawn());
    else if (this.all.size === 0) {
      for (const waiting of this.queue.splice(0)) waiting.reject(new Error('no compare worker is left'));
    }
    this.dispatch();
  }
}
