import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';

import { pinoHttp } from 'pino-http';

import { loadConfig } from '../config/app-config';
import { logFormatOf, loggableUrl, loggerParams, pinoLevelOf } from './service-logger';

describe('log format', () => {
  it('is pretty only in a terminal outside production; JSON for a pipe whatever NODE_ENV says', () => {
    expect(logFormatOf({}, {}, true)).toBe('pretty');
    expect(logFormatOf({}, { NODE_ENV: 'production' }, true)).toBe('json');
    expect(logFormatOf({}, {}, false)).toBe('json');
    expect(logFormatOf({}, { NODE_ENV: 'development' }, false)).toBe('json');
  });

  it('LOG_FORMAT decides when set', () => {
    expect(logFormatOf({ LOG_FORMAT: 'json' }, {}, true)).toBe('json');
    expect(logFormatOf({ LOG_FORMAT: 'pretty' }, { NODE_ENV: 'production' }, false)).toBe('pretty');
  });

  it('LOG_FORMAT takes json or pretty; LOG_LEVEL takes the names of Nest and of pino', () => {
    expect(loadConfig({}).LOG_FORMAT).toBeUndefined();
    expect(() => loadConfig({ LOG_FORMAT: 'text' })).toThrow(/LOG_FORMAT must be json or pretty/);
    expect(loadConfig({ LOG_LEVEL: 'info' }).LOG_LEVEL).toBe('info');
    expect(() => loadConfig({ LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL must be one of/);
    expect(['log', 'verbose', 'info', 'warn'].map(pinoLevelOf)).toEqual(['info', 'trace', 'info', 'warn']);
  });
});

describe('the logged URL', () => {
  it('keeps the path and plain parameters, and hides the value of every credential', () => {
    expect(loggableUrl('/sys/login')).toBe('/sys/login');
    expect(loggableUrl('/sys/message/stream?ticket=abc.def&lang=zh')).toBe(
      '/sys/message/stream?ticket=[Redacted]&lang=zh',
    );
    expect(loggableUrl('/x?token=t1&Admin-Token=t2&code=123456&password=p&page=2')).toBe(
      '/x?token=[Redacted]&Admin-Token=[Redacted]&code=[Redacted]&password=[Redacted]&page=2',
    );
    expect(loggableUrl('/x?')).toBe('/x');
  });
});

describe('request lines', () => {
  let server: Server;
  const lines: any[] = [];

  beforeAll(async () => {
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(
          ...chunk
            .toString()
            .split('\n')
            .filter(Boolean)
            .map((l: string) => JSON.parse(l)),
        );
        done();
      },
    });
    const params = loggerParams({ LOG_LEVEL: 'log' }, { format: 'json', stream }).pinoHttp as any;
    const log = pinoHttp(...(params as [object, Writable]));
    server = createServer((req, res) => {
      log(req, res);
      res.setHeader('set-cookie', 'sid=cookie-secret');
      if (req.url === '/fail') res.statusCode = 500;
      res.end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });

  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const request = (path: string, headers: Record<string, string> = {}) =>
    fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`, {
      method: 'POST',
      headers,
      body: '{"password":"body-secret"}',
    });

  it('one line per request: method, redacted URL and status as its message; credential headers and cookies redacted', async () => {
    await request('/sys/message/stream?ticket=ticket-secret', {
      'admin-token': 'token-secret',
      authorization: 'Bearer bearer-secret',
      cookie: 'sid=cookie-secret',
      'user-agent': 'jest',
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines).toHaveLength(1);
    const [line] = lines;
    expect(line).toMatchObject({
      level: 'info',
      msg: 'POST /sys/message/stream?ticket=[Redacted] 200',
      req: {
        method: 'POST',
        url: '/sys/message/stream?ticket=[Redacted]',
        headers: {
          'admin-token': '[Redacted]',
          authorization: '[Redacted]',
          cookie: '[Redacted]',
          'user-agent': 'jest',
        },
      },
      res: { statusCode: 200, headers: { 'set-cookie': '[Redacted]' } },
    });
    expect(line.req.query).toBeUndefined();
    expect(JSON.stringify(lines)).not.toMatch(/secret/);
  });

  it('a 5xx answer: one error line with the status, and no made-up stack', async () => {
    lines.length = 0;
    await request('/fail');
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'error', msg: 'POST /fail 500', res: { statusCode: 500 } });
    expect(lines[0].err).toBeUndefined();
  });
});
