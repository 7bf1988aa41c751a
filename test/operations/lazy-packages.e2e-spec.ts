import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { ADMIN_PASSWORD, buildService, ServiceNode } from '../cluster/cluster-node';

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
  async function loadedBy(name: string, env: Record<string, string>, use: (node: ServiceNode) => Promise<void>) {
    const loadedFile = join(dir, `${name}.loaded`);
    const node = await ServiceNode.start(name, main, {
      NODE_OPTIONS: `--require ${join(dir, 'preload.js')}`,
      ADMIN_INITIAL_PASSWORD: ADMIN_PASSWORD,
      DATABASE_URL: `sqlite:${join(dir, `${name}.sqlite`)}`,
      LOADED_FILE: loadedFile,
      ...env,
    });
    try {
      await node.waitHealthy();
      await use(node);
    } finally {
      await node.stop();
    }
    return readFileSync(loadedFile, 'utf8').split('\n');
  }

  const captcha = async (node: ServiceNode) =>
    (await node.post<{ imgId: string | null; img: string | null }>('/sys/captcha')).body.data;

  it('the embedded default with the captcha off loads neither Skia, mysql2 nor the Redis client', async () => {
    const loaded = await loadedBy('off', { CAPTCHA_ENABLED: 'false' }, async (node) => {
      expect((await captcha(node)).img).toBeNull();
    });
    expect(loaded.some((file) => file.includes('/node_modules/@nestjs/core/'))).toBe(true);
    expect(loaded.filter((file) => CANVAS.test(file) || MYSQL2.test(file) || REDIS.test(file))).toEqual([]);
  });

  it('with the captcha on, Skia is loaded at the first captcha and draws it', async () => {
    const loaded = await loadedBy('on', { CAPTCHA_ENABLED: 'true' }, async (node) => {
      const data = await captcha(node);
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
