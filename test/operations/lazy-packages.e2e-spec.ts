import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { buildService, freePort } from '../cluster/cluster-node';

/*
 * Memory an instance does not need: the captcha's drawing library (Skia, which maps the machine's
 * font files), the MariaDB driver and the Redis client are loaded only by an instance that uses
 * them (docs/operations.md, memory). The built service runs with a preload that writes, when it is
 * told to stop, the files its main thread has loaded.
 */

jest.setTimeout(120_000);

const PRELOAD = `
const { isMainThread } = require('node:worker_threads');
if (isMainThread) {
  process.on('SIGTERM', () => require('node:fs').writeFileSync(process.env.LOADED_FILE, Object.keys(require.cache).join('\\n')));
}
`;

const CANVAS = /node_modules\/@napi-rs\/canvas\//;
const MYSQL2 = /node_modules\/mysql2\//;
const REDIS = /node_modules\/@redis\/client\//;

describe('packages an instance does not use stay unloaded', () => {
  let main: string;
  let dir: string;

  beforeAll(async () => {
    main = await buildService();
    dir = mkdtempSync(join(tmpdir(), 'lps-lazy-'));
    writeFileSync(join(dir, 'preload.js'), PRELOAD);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Starts the built service on its own SQLite file, runs `use` against it, stops it and answers what it loaded. */
  async function loadedBy(name: string, env: Record<string, string>, use: (url: string) => Promise<void>) {
    const port = await freePort();
    const loadedFile = join(dir, `${name}.loaded`);
    const child = spawn(process.execPath, ['--require', join(dir, 'preload.js'), main], {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        HOST: '127.0.0.1',
        PORT: String(port),
        ADMIN_INITIAL_PASSWORD: 'Admin@12345',
        LOG_LEVEL: 'warn',
        DATABASE_URL: `sqlite:${join(dir, `${name}.sqlite`)}`,
        LOADED_FILE: loadedFile,
        ...env,
      },
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const url = `http://127.0.0.1:${port}`;
    try {
      const giveUpAt = Date.now() + 60_000;
      for (;;) {
        const up = await fetch(`${url}/health`).then(
          (res) => res.ok,
          () => false,
        );
        if (up) break;
        if (Date.now() > giveUpAt) throw new Error('the service did not answer /health within 60 s');
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      await use(url);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
    return readFileSync(loadedFile, 'utf8').split('\n');
  }

  const captcha = (url: string) =>
    fetch(`${url}/sys/captcha`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }).then(
      (res) => res.json() as Promise<{ data: { imgId: string | null; img: string | null } }>,
    );

  it('the embedded default with the captcha off loads neither Skia, mysql2 nor the Redis client', async () => {
    const loaded = await loadedBy('off', { CAPTCHA_ENABLED: 'false' }, async (url) => {
      expect((await captcha(url)).data.img).toBeNull();
    });
    expect(loaded.some((file) => file.includes('/node_modules/@nestjs/core/'))).toBe(true);
    expect(loaded.filter((file) => CANVAS.test(file) || MYSQL2.test(file) || REDIS.test(file))).toEqual([]);
  });

  it('with the captcha on, Skia is loaded at the first captcha and draws it', async () => {
    const loaded = await loadedBy('on', { CAPTCHA_ENABLED: 'true' }, async (url) => {
      const { data } = await captcha(url);
      expect(data.imgId).toEqual(expect.any(String));
      expect(
        Buffer.from(data.img!.replace(/^data:image\/png;base64,/, ''), 'base64')
          .subarray(1, 4)
          .toString(),
      ).toBe('PNG');
    });
    expect(loaded.some((file) => CANVAS.test(file))).toBe(true);
  });
});
