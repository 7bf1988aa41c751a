import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { sqliteMemory } from '../support/backends';
import { createActiveUser } from '../support/factories';
import { encryptPassword } from '../support/password-transport';
import { SseClient } from '../support/sse-client';
import { listenOnLocalPort, startApp, TestApp } from '../support/test-app';
import { waitFor } from '../support/wait';

/**
 * docs/nginx/login-policy.conf, the configuration docs/operations.md recommends, run for real in front
 * of the service: the client IP the service records is the one nginx saw (not one the client wrote
 * into X-Forwarded-For), and the message stream reaches the client event by event.
 */
jest.setTimeout(60_000);

const CONF = resolve(__dirname, '../../docs/nginx/login-policy.conf');
const NGINX = process.env.NGINX_PATH ?? ['/usr/sbin/nginx', '/usr/bin/nginx'].find((p) => existsSync(p)) ?? 'nginx';
const HAS_NGINX = spawnSync(NGINX, ['-v']).status === 0;
if (!HAS_NGINX) {
  // CI installs nginx-light (.ci/run); only a developer machine without nginx skips this suite.
  console.warn('nginx.e2e-spec: nginx is not installed, the reverse-proxy suite is skipped');
}

/** The client's own address: not nginx's (127.0.0.1), so the test can tell the two apart. */
const CLIENT_ADDRESS = '127.0.0.3';

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

/** The documented file with only its two addresses changed, inside the smallest main configuration. */
function nginxConfig(dir: string, appPort: number, nginxPort: number): string {
  const site = readFileSync(CONF, 'utf8');
  const ours = site
    .replace(/^(\s*)server 127\.0\.0\.1:3000;$/m, `$1server 127.0.0.1:${appPort};`)
    .replace(/^(\s*)listen 80;$/m, `$1listen 127.0.0.1:${nginxPort};`);
  // The file's shape is what the test relies on: fail loudly instead of testing another config.
  expect(ours).toContain(`server 127.0.0.1:${appPort};`);
  expect(ours).toContain(`listen 127.0.0.1:${nginxPort};`);
  writeFileSync(join(dir, 'site.conf'), ours);
  const temp = (name: string) => join(dir, name);
  writeFileSync(
    join(dir, 'nginx.conf'),
    [
      `pid ${temp('nginx.pid')};`,
      `error_log ${temp('error.log')} warn;`,
      'worker_processes 1;',
      'events { worker_connections 64; }',
      'http {',
      `  access_log ${temp('access.log')};`,
      ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((kind) => `  ${kind}_temp_path ${temp(kind)};`),
      `  include ${join(dir, 'site.conf')};`,
      '}',
    ].join('\n'),
  );
  return join(dir, 'nginx.conf');
}

interface Answer {
  status: number;
  body: any;
}

/** A POST from CLIENT_ADDRESS, as a browser on another machine would send it through nginx. */
function post(base: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((done, fail) => {
    const payload = JSON.stringify(body);
    const req = request(
      `${base}${path}`,
      {
        method: 'POST',
        localAddress: CLIENT_ADDRESS,
        headers: {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(payload)),
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => done({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    req.on('error', fail);
    req.end(payload);
  });
}

// Skipped only on a machine without nginx; .ci/run installs nginx-light, so CI runs it.
(HAS_NGINX ? describe.each(['1', '127.0.0.1']) : describe.skip.each(['1']))(
  'behind nginx with docs/nginx/login-policy.conf, TRUST_PROXY=%s',
  (trustProxy) => {
    let app: TestApp;
    let dir: string;
    let nginx: ChildProcess;
    let base: string;
    let nginxLog = '';

    beforeAll(async () => {
      app = await startApp(sqliteMemory, { env: { TRUST_PROXY: trustProxy } });
      const appPort = Number(new URL(await listenOnLocalPort(app)).port);
      const nginxPort = await freePort();
      dir = mkdtempSync(join(tmpdir(), 'lps-nginx-'));
      // nginx started as root runs its worker as another user, which must reach the temp paths.
      chmodSync(dir, 0o777);
      nginx = spawn(NGINX, ['-p', dir, '-c', nginxConfig(dir, appPort, nginxPort), '-g', 'daemon off;'], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      nginx.stderr!.on('data', (chunk) => (nginxLog += String(chunk)));
      base = `http://127.0.0.1:${nginxPort}`;
      await waitFor(
        async () => {
          if (nginx.exitCode !== null) throw new Error(`nginx exited: ${nginxLog}`);
          return post(base, '/sys/publicKey', {}).then(
            (r) => r.status === 200,
            () => false,
          );
        },
        'nginx to answer',
        10_000,
        50,
      );
    });

    afterAll(async () => {
      if (nginx && nginx.exitCode === null) {
        const exited = new Promise((done) => nginx.once('exit', done));
        nginx.kill('SIGQUIT');
        await exited;
      }
      if (dir) rmSync(dir, { recursive: true, force: true });
      await app?.close();
    });

    it('records the client address nginx appended, not the one the client wrote into X-Forwarded-For', async () => {
      const user = await createActiveUser(app);
      const { publicKey } = (await post(base, '/sys/publicKey', {})).body.data;
      const answer = await post(
        base,
        '/sys/login',
        { account: user.username, password: encryptPassword(publicKey, user.password) },
        {
          'x-forwarded-for': '203.0.113.9',
        },
      );
      expect(answer.body).toMatchObject({ success: true, code: 'OK' });

      // Its first row is createActiveUser's own login, sent straight to the app.
      const rows = await app.logRows(user.username);
      expect(rows.map((r) => [r.status, r.ip]).at(-1)).toEqual(['success', CLIENT_ADDRESS]);
      expect(rows.map((r) => r.ip)).not.toContain('203.0.113.9');
    });

    it('passes the message stream through unbuffered: an event arrives while the stream stays open', async () => {
      const user = await createActiveUser(app);
      const { publicKey } = (await post(base, '/sys/publicKey', {})).body.data;
      const token = (
        await post(base, '/sys/login', { account: user.username, password: encryptPassword(publicKey, user.password) })
      ).body.data.accessToken;
      await app.saveLoginStrategy({ sendMsgWhenErrorLogin: 'site' });

      const stream = await SseClient.open(`${base}/sys/message/stream`, { 'admin-token': token });
      try {
        expect(stream.status).toBe(200);
        expect(stream.headers['content-type']).toBe('text/event-stream; charset=utf-8');
        // The preamble is a few bytes: a buffering proxy would hold it back until far more arrived.
        await waitFor(() => stream.raw.includes(': connected'), 'the stream preamble through nginx', 3_000);

        await post(base, '/sys/login', { account: user.username, password: encryptPassword(publicKey, 'Wrong#pass1') });
        const event = await stream.next((e) => e.event === 'message', 3_000);
        expect(event.data).toMatchObject({ kind: 'login-failed', read: false });
        expect(event.data.content).toContain(CLIENT_ADDRESS);
        expect(stream.ended).toBe(false);
      } finally {
        stream.disconnect();
      }
    });
  },
);
