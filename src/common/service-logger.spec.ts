import { randomUUID } from 'node:crypto';
import { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';

import Fastify, { FastifyInstance } from 'fastify';
import { PinoLogger } from 'nestjs-pino';

import { loadConfig } from '../config/app-config';
import { HIJACKING, logFormatOf, loggableUrl, loggerParams, pinoLevelOf, ServiceLogger } from './service-logger';

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
  let app: FastifyInstance;
  let logger: ServiceLogger;
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
    logger = ServiceLogger.create(loggerParams({ LOG_LEVEL: 'log' }, { format: 'json', stream }));
    app = Fastify({ genReqId: () => randomUUID() });
    logger.logRequests(app);
    app.post('/sys/message/stream', async (_request, reply) => {
      logger.warn('inside the handler', 'Test');
      void reply.header('set-cookie', 'sid=cookie-secret');
      return {};
    });
    app.post('/fail', async (_request, reply) => reply.code(500).send({}));
    app.post('/stream', { config: HIJACKING }, async (_request, reply) => {
      reply.hijack();
      reply.raw.writeHead(200, { 'content-type': 'text/event-stream' });
      reply.raw.write('event: open\n\n');
      setTimeout(() => reply.raw.end(), 20);
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
  });

  afterAll(() => app.close());
  beforeEach(() => {
    lines.length = 0;
    PinoLogger.root.level = 'info';
  });

  const request = (path: string, headers: Record<string, string> = {}) =>
    fetch(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
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
    const requestLines = lines.filter((l) => l.req);
    expect(requestLines).toHaveLength(1);
    const [line] = requestLines;
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
        remoteAddress: '127.0.0.1',
      },
      res: { statusCode: 200, headers: { 'set-cookie': '[Redacted]' } },
      responseTime: expect.any(Number),
    });
    expect(line.req.query).toBeUndefined();
    expect(JSON.stringify(lines)).not.toMatch(/secret/);
  });

  it("a line written while the handler runs carries the request's id, the request line the same", async () => {
    await request('/sys/message/stream');
    await new Promise((resolve) => setImmediate(resolve));
    const inside = lines.find((l) => l.msg === 'inside the handler');
    const requestLine = lines.find((l) => l.req);
    expect(inside.reqId).toMatch(/^[0-9a-f-]{36}$/);
    expect(requestLine.reqId).toBe(inside.reqId);
    await request('/sys/message/stream');
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines.filter((l) => l.msg === 'inside the handler')[1].reqId).not.toBe(inside.reqId);
  });

  it('a 5xx answer: one error line with the status, and no made-up stack', async () => {
    await request('/fail');
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'error', msg: 'POST /fail 500', res: { statusCode: 500 } });
    expect(lines[0].err).toBeUndefined();
  });

  it('a reply the handler takes over (a stream) has its line when it closes', async () => {
    const answer = await request('/stream?ticket=ticket-secret');
    expect(await answer.text()).toBe('event: open\n\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines).toEqual([expect.objectContaining({ level: 'info', msg: 'POST /stream?ticket=[Redacted] 200' })]);
  });

  it('at LOG_LEVEL warn a 2xx writes no line and a 5xx still does', async () => {
    PinoLogger.root.level = 'warn';
    await request('/sys/message/stream');
    await request('/fail');
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines.map((l) => l.msg)).toEqual(['inside the handler', 'POST /fail 500']);
  });
});
