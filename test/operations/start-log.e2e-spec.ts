import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { buildService, freePort } from '../cluster/cluster-node';

/*
 * What an operator reads when the built service starts: a few lines, not one per module and route;
 * times in ISO 8601 whichever format; and "started" only once the port answers (a start that cannot
 * bind its port never says it started).
 */

jest.setTimeout(120_000);

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const ISO_PRETTY = /^\[\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}[+-]\d{2}:\d{2}\] /;

interface Run {
  lines: string[];
  /** Whether /health answered at the moment the line saying "started" arrived. */
  answeredAtStarted: boolean | null;
  code: number | null;
}

/** Starts the built service, stops it (SIGTERM) once it says it started or after `boundMs`, and answers what it wrote. */
function startAndStop(main: string, port: number, env: Record<string, string>, boundMs = 60_000): Promise<Run> {
  return new Promise((resolve) => {
    const child: ChildProcess = spawn(process.execPath, [main], {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        NO_COLOR: '1',
        HOST: '127.0.0.1',
        PORT: String(port),
        ADMIN_INITIAL_PASSWORD: 'Admin@12345',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const run: Run = { lines: [], answeredAtStarted: null, code: null };
    let buffer = '';
    const onData = (chunk: Buffer) => {
      buffer += chunk.toString();
      const parts = buffer.split('\n');
      buffer = parts.pop()!;
      for (const line of parts.filter((l) => l.trim())) {
        run.lines.push(line);
        if (run.answeredAtStarted === null && /\bstarted\b/.test(line)) {
          run.answeredAtStarted = false;
          void fetch(`http://127.0.0.1:${port}/health`)
            .then((res) => (run.answeredAtStarted = res.status === 200))
            .catch(() => (run.answeredAtStarted = false))
            .finally(() => child.kill('SIGTERM'));
        }
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    const killer = setTimeout(() => child.kill('SIGKILL'), boundMs);
    child.once('close', (code) => {
      clearTimeout(killer);
      if (buffer.trim()) run.lines.push(buffer);
      run.code = code;
      resolve(run);
    });
  });
}

describe('the start log of the built service', () => {
  let main: string;
  let dir: string;

  beforeAll(async () => {
    main = await buildService();
    dir = mkdtempSync(join(tmpdir(), 'lps-startlog-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('at the default level: a few JSON lines with ISO 8601 times, no route or module lines, "started" once the port answers', async () => {
    const run = await startAndStop(main, await freePort(), { DATABASE_URL: `sqlite:${join(dir, 'default.sqlite')}` });
    const entries = run.lines.map((line) => JSON.parse(line) as { time: string; msg: string; context?: string });
    expect(entries.length).toBeGreaterThan(0);
    for (const entry of entries) expect(entry.time).toMatch(ISO_UTC);
    expect(run.lines.filter((l) => l.includes('Mapped {'))).toEqual([]);
    expect(entries.filter((e) => ['InstanceLoader', 'RoutesResolver', 'RouterExplorer'].includes(e.context!))).toEqual(
      [],
    );
    const started = entries.filter((e) => /\bstarted\b/.test(e.msg));
    expect(started).toHaveLength(1);
    expect(started[0]).toMatchObject({ context: 'Bootstrap', msg: expect.stringContaining('listening on') });
    expect(run.answeredAtStarted).toBe(true);
    // Before the port: what it read and what it opened, not a page of detail.
    expect(entries.indexOf(started[0])).toBeLessThan(15);
  });

  it('LOG_LEVEL=debug still shows each mapped route', async () => {
    const run = await startAndStop(main, await freePort(), {
      DATABASE_URL: `sqlite:${join(dir, 'debug.sqlite')}`,
      LOG_LEVEL: 'debug',
    });
    expect(run.lines.some((l) => l.includes('Mapped {/sys/login, POST} route'))).toBe(true);
    expect(run.answeredAtStarted).toBe(true);
  });

  it('LOG_FORMAT=pretty: each line starts with an ISO 8601 time with its offset', async () => {
    const run = await startAndStop(main, await freePort(), {
      DATABASE_URL: `sqlite:${join(dir, 'pretty.sqlite')}`,
      LOG_FORMAT: 'pretty',
    });
    expect(run.lines.length).toBeGreaterThan(0);
    for (const line of run.lines) expect(line).toMatch(ISO_PRETTY);
    expect(run.answeredAtStarted).toBe(true);
  });

  it('a port in use: the service never says it started', async () => {
    const port = await freePort();
    const holder: Server = createServer();
    await new Promise<void>((resolve) => holder.listen(port, '127.0.0.1', resolve));
    try {
      const run = await startAndStop(main, port, { DATABASE_URL: `sqlite:${join(dir, 'busy.sqlite')}` });
      expect(run.code).toBe(1);
      expect(run.lines.filter((l) => /\bstarted\b/.test(l))).toEqual([]);
    } finally {
      holder.close();
    }
  });
});
