import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { buildService, freePort } from '../cluster/cluster-node';

/*
 * A start that cannot succeed ends — within a bound, with a non-zero exit code — with
 * ONE line naming the variable to check, and no stack trace. Before, a port in use ended in a stack
 * trace, an unreachable Redis logged WARN ECONNREFUSED for ever without opening the port, and an
 * unreachable MySQL printed a stack trace for each of TypeORM's ten retries.
 */

jest.setTimeout(120_000);

interface Ended {
  code: number | null;
  lines: string[];
  ms: number;
}

/** Starts the built service and waits for it to end (killed after `boundMs`: then `code` is null). */
function startUntilExit(main: string, env: Record<string, string>, boundMs: number): Promise<Ended> {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, [main], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NO_COLOR: '1', HOST: '127.0.0.1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const killer = setTimeout(() => child.kill('SIGKILL'), boundMs);
    child.once('close', (code) => {
      clearTimeout(killer);
      resolve({ code, lines: output.split('\n').filter(Boolean), ms: Date.now() - started });
    });
  });
}

function expectOneClearLine(ended: Ended, variable: string) {
  const failures = ended.lines.filter((l) => l.includes('Cannot start'));
  expect(failures).toHaveLength(1);
  expect(failures[0]).toContain(`Cannot start: ${variable}: `);
  // No stack trace, and nothing else that reads as an error.
  expect(ended.lines.filter((l) => /^\s+at /.test(l))).toEqual([]);
  expect(ended.lines.filter((l) => /ERROR|Error|ECONN/.test(l) && !l.includes('Cannot start'))).toEqual([]);
  expect(ended.code).toBe(1);
}

describe('a start that cannot succeed ends with one line (built service)', () => {
  let main: string;
  let dir: string;

  beforeAll(async () => {
    main = await buildService();
    dir = mkdtempSync(join(tmpdir(), 'lps-start-'));
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('PORT in use: names PORT and the address, within seconds', async () => {
    const port = await freePort();
    const holder: Server = createServer();
    await new Promise<void>((resolve) => holder.listen(port, '127.0.0.1', resolve));
    try {
      const ended = await startUntilExit(
        main,
        {
          PORT: String(port),
          DATABASE_URL: `sqlite:${join(dir, 'port.sqlite')}`,
          ADMIN_INITIAL_PASSWORD: 'Admin@12345',
        },
        60_000,
      );
      expectOneClearLine(ended, 'PORT');
      expect(ended.lines.join('\n')).toContain(`127.0.0.1:${port} is already in use`);
    } finally {
      holder.close();
    }
  });

  it('LOG_RETENTION_DAYS below six months (but not 0): one line naming it, exit 1, before anything opens', async () => {
    const ended = await startUntilExit(
      main,
      {
        PORT: String(await freePort()),
        DATABASE_URL: `sqlite:${join(dir, 'retention.sqlite')}`,
        LOG_RETENTION_DAYS: '30',
      },
      30_000,
    );
    expect(ended.code).toBe(1);
    expect(ended.lines).toEqual([
      'Invalid configuration: LOG_RETENTION_DAYS: LOG_RETENTION_DAYS must be 0 (keep everything) or at least 180: logs are kept six months (网络安全法 art. 21)',
    ]);
  });

  it('REDIS_URL to a closed port: no WARN per retry, one line after START_TIMEOUT_MS', async () => {
    const closed = await freePort();
    const ended = await startUntilExit(
      main,
      {
        PORT: String(await freePort()),
        DATABASE_URL: `sqlite:${join(dir, 'redis.sqlite')}`,
        ADMIN_INITIAL_PASSWORD: 'Admin@12345',
        REDIS_URL: `redis://:secret-pass@127.0.0.1:${closed}`,
        START_TIMEOUT_MS: '2000',
      },
      30_000,
    );
    expectOneClearLine(ended, 'REDIS_URL');
    const output = ended.lines.join('\n');
    expect(output).toContain(`no answer from Redis at 127.0.0.1:${closed} within 2 s (ECONNREFUSED)`);
    expect(output).not.toContain('secret-pass');
    expect(ended.ms).toBeGreaterThanOrEqual(2_000);
  });

  it('DATABASE_URL to a closed MySQL port: retried quietly, one line after START_TIMEOUT_MS', async () => {
    const closed = await freePort();
    const ended = await startUntilExit(
      main,
      {
        PORT: String(await freePort()),
        DATABASE_URL: `mysql://lps:secret-pass@127.0.0.1:${closed}/lps`,
        START_TIMEOUT_MS: '2000',
      },
      30_000,
    );
    expectOneClearLine(ended, 'DATABASE_URL');
    const output = ended.lines.join('\n');
    expect(output).toContain(`no answer from MySQL at 127.0.0.1:${closed} within 2 s (ECONNREFUSED)`);
    expect(output).not.toContain('secret-pass');
    expect(ended.ms).toBeGreaterThanOrEqual(2_000);
  });

  it('DATABASE_URL with a wrong password: ends at once, without waiting for START_TIMEOUT_MS', async () => {
    const ended = await startUntilExit(
      main,
      {
        PORT: String(await freePort()),
        DATABASE_URL: 'mysql://lps_nobody:wrong-pass@127.0.0.1:3306/lps',
        START_TIMEOUT_MS: '60000',
      },
      30_000,
    );
    expectOneClearLine(ended, 'DATABASE_URL');
    expect(ended.lines.join('\n')).toMatch(
      /MySQL at 127\.0\.0\.1:3306: the server refused the user or password \(ER_ACCESS_DENIED\w*\)/,
    );
    expect(ended.ms).toBeLessThan(30_000);
    expect(ended.lines.join('\n')).not.toContain('wrong-pass');
  });
});
