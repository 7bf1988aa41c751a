import { Worker } from 'node:worker_threads';

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

interface Pending {
  resolve: (result: CompareResult) => void;
  reject: (err: Error) => void;
}

/**
 * BCrypt compares on worker threads of their own, each at COMPARE_NICE (a libuv pool thread, where
 * bcrypt's async compare runs, shares its priority with the event loop and with file and DNS work).
 * The caller (CompareBudget) never runs more compares at once than there are workers; should it,
 * the extra ones wait for a worker here.
 */
export class ComparePool {
  private readonly idle: Worker[] = [];
  private readonly all: Worker[] = [];
  /** The one compare each busy worker runs. */
  private readonly busy = new Map<Worker, Pending>();
  private readonly waiting: (() => void)[] = [];

  constructor(size: number) {
    const bcryptPath = require.resolve('bcrypt');
    for (let i = 0; i < size; i += 1) {
      const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { bcrypt: bcryptPath, nice: COMPARE_NICE } });
      worker.unref();
      worker.on('message', (result: CompareResult) => {
        this.busy.get(worker)?.resolve(result);
        this.busy.delete(worker);
      });
      worker.on('error', (err) => {
        this.busy.get(worker)?.reject(err);
        this.busy.delete(worker);
      });
      this.all.push(worker);
      this.idle.push(worker);
    }
  }

  async compare(plain: string, hash: string): Promise<CompareResult> {
    let worker = this.idle.pop();
    while (!worker) {
      await new Promise<void>((r) => this.waiting.push(r));
      worker = this.idle.pop();
    }
    try {
      return await new Promise<CompareResult>((resolve, reject) => {
        this.busy.set(worker, { resolve, reject });
        worker.postMessage({ plain, hash });
      });
    } finally {
      this.idle.push(worker);
      this.waiting.shift()?.();
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.all.map((w) => w.terminate()));
  }
}
