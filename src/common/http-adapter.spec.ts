import { type AddressInfo, connect } from 'node:net';

import { Controller, Injectable, Module, OnApplicationShutdown, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';

import { createHttpAdapter, EnvelopeFastifyAdapter, requestIds } from './http-adapter';

/** What happened, in order: the handler's steps and the shutdown hook (standing for the database's close). */
const events: string[] = [];
let release: () => void = () => undefined;
let started: () => void = () => undefined;

@Controller()
class SlowController {
  /** Runs until the test releases it, like a login in its BCrypt compare. */
  @Post('slow')
  async slow() {
    started();
    await new Promise<void>((resolve) => {
      release = resolve;
    });
    events.push('handler finished');
    return { done: true };
  }

  @Post('fast')
  fast() {
    return { fast: true };
  }
}

@Injectable()
class Database implements OnApplicationShutdown {
  onApplicationShutdown() {
    events.push('database closed');
  }
}

@Module({ controllers: [SlowController], providers: [Database] })
class SlowModule {}

/** Sends a request on a raw socket and destroys it once the handler has started: a client that gave up. */
async function requestThenLeave(port: number): Promise<void> {
  const running = new Promise<void>((resolve) => {
    started = resolve;
  });
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  socket.write('POST /slow HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}');
  await running;
  socket.destroy();
  await new Promise((resolve) => setTimeout(resolve, 50));
}

describe('EnvelopeFastifyAdapter: a stop waits for handlers whose client has gone', () => {
  let app: NestFastifyApplication;
  let adapter: EnvelopeFastifyAdapter;
  let port: number;

  beforeEach(async () => {
    events.length = 0;
    adapter = createHttpAdapter({ BODY_LIMIT_BYTES: 1024, TRUST_PROXY: false });
    app = await NestFactory.create<NestFastifyApplication>(SlowModule, adapter, { logger: false });
    await app.listen(0, '127.0.0.1');
    port = (app.getHttpServer().address() as AddressInfo).port;
  });

  it('closes the database only after a handler still running for a departed client has finished', async () => {
    await requestThenLeave(port);
    const closed = app.close();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(events).toEqual([]);
    release();
    await closed;
    expect(events).toEqual(['handler finished', 'database closed']);
  });

  it('does not wait past drainMs for a handler that never finishes', async () => {
    adapter.drainMs = 300;
    await requestThenLeave(port);
    const startedAt = Date.now();
    await app.close();
    expect(events).toEqual(['database closed']);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(250);
    release();
  });

  it('stops at once when nothing is running, and a sync handler answers as before', async () => {
    const answer = await fetch(`http://127.0.0.1:${port}/fast`, { method: 'POST' });
    expect(await answer.json()).toEqual({
      success: true,
      code: 'OK',
      message: expect.any(String),
      data: { fast: true },
    });
    const startedAt = Date.now();
    await app.close();
    expect(Date.now() - startedAt).toBeLessThan(1_000);
    expect(events).toEqual(['database closed']);
  });
});

describe('requestIds: the ids of the request logs', () => {
  it('gives every request its own id, and a new start ids that the last start never gave', () => {
    const first = requestIds();
    const firstIds = Array.from({ length: 1000 }, () => first());
    expect(new Set(firstIds).size).toBe(1000);
    const restarted = requestIds();
    const restartedIds = Array.from({ length: 1000 }, () => restarted());
    expect(restartedIds.filter((id) => firstIds.includes(id))).toEqual([]);
    expect(firstIds[0]).toMatch(/^[0-9a-f]{12}-1$/);
  });

  it("are what the service's adapter gives its requests, never a client's X-Request-Id", async () => {
    const fastify = createHttpAdapter({ BODY_LIMIT_BYTES: 1024, TRUST_PROXY: false }).getInstance();
    fastify.get('/id', (request) => ({ id: request.id }));
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await fastify.inject({ method: 'GET', url: '/id', headers: { 'x-request-id': 'chosen' } });
      ids.push(res.json().id);
    }
    await fastify.close();
    const [first, second] = ids;
    expect(first).toMatch(/^[0-9a-f]{12}-[0-9a-z]+$/);
    expect(second).toBe(`${first.split('-')[0]}-${(parseInt(first.split('-')[1], 36) + 1).toString(36)}`);
  });
});
