import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { buildService, ServiceNode } from '../cluster/cluster-node';
import { waitFor } from '../support/wait';

/*
 * The built service and the signals an operator sends it. SIGTERM and SIGINT end it gracefully;
 * SIGUSR2 is what `node --heapsnapshot-signal=SIGUSR2` (the way to see what holds memory in a
 * running instance) listens to — Nest's enableShutdownHooks() without a list also closes the app
 * on SIGUSR2 (and SIGHUP, SIGQUIT, …), so asking for a heap snapshot used to stop the service.
 */

jest.setTimeout(120_000);

describe('process signals of the built service (embedded default)', () => {
  let dir: string;
  let main: string;

  beforeAll(async () => {
    main = await buildService();
    dir = mkdtempSync(join(tmpdir(), 'lps-signals-'));
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function start(): Promise<ServiceNode> {
    return ServiceNode.start('S', main, {
      DATABASE_URL: `sqlite:${join(dir, 'signals.sqlite')}`,
      ADMIN_INITIAL_PASSWORD: 'Admin@12345',
      NODE_OPTIONS: `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${dir}`,
    });
  }

  it('writes a heap snapshot on SIGUSR2 and goes on answering', async () => {
    const node = await start();
    try {
      await node.waitHealthy();
      process.kill(node.pid, 'SIGUSR2');
      await waitFor(() => readdirSync(dir).some((f) => f.endsWith('.heapsnapshot')), 'a heap snapshot', 60_000, 200);
      // The file appears when writing begins; the main thread is busy writing it until it ends
      // (over 5 s on a loaded CI machine under Node 24), and only then answers.
      const res = await fetch(`${node.url}/health`, { signal: AbortSignal.timeout(60_000) });
      expect(res.status).toBe(200);
      expect(node.child.exitCode).toBeNull();
      expect(node.child.signalCode).toBeNull();
    } finally {
      await node.stop();
    }
  });

  it('ends on SIGTERM after closing the app (Nest re-raises the signal once closed)', async () => {
    const node = await start();
    await node.waitHealthy();
    // A write, so that the database has a write-ahead log open.
    expect((await node.post('/sys/publicKey')).status).toBe(200);
    expect(existsSync(join(dir, 'signals.sqlite-wal'))).toBe(true);
    const exited = new Promise<[number | null, string | null]>((resolve) =>
      node.child.once('exit', (code, signal) => resolve([code, signal])),
    );
    process.kill(node.pid, 'SIGTERM');
    const [code, signal] = await exited;
    expect(code === 0 || signal === 'SIGTERM').toBe(true);
    // Closed, not just killed: the last SQLite connection to close checkpoints and removes its WAL.
    expect(existsSync(join(dir, 'signals.sqlite-wal'))).toBe(false);
    expect(node.log()).not.toMatch(/Error|at .*\.js:\d+/);
  });
});
