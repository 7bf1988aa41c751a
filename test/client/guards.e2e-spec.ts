import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { Controller, Get, Module, Req, UseGuards } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';

import { callerOf, type LoginPolicyClient, type PermissionGuard } from '../../client/src';
import { BACKENDS } from '../support/backends';
import { createActiveUser, createRole, createUser } from '../support/factories';
import { listenOnLocalPort, startApp, TestApp } from '../support/test-app';
import { countingClient, createApiKey } from './support';

/** A downstream service with one guarded route, GET /reports, answering who passed. */
interface Downstream {
  get(headers: Record<string, string>): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

/** Fastify: the guard as the route's preHandler hook. */
async function fastifyService(guard: PermissionGuard): Promise<Downstream> {
  const fastify = new FastifyAdapter().getInstance();
  fastify.get('/reports', { preHandler: guard.fastify }, async (request) => ({ user: callerOf(request)?.username }));
  await fastify.ready();
  return {
    async get(headers) {
      const res = await fastify.inject({ method: 'GET', url: '/reports', headers });
      return { status: res.statusCode, body: res.json() };
    },
    close: () => fastify.close(),
  };
}

/**
 * Express's middleware signature, on Node's own http server (express itself is not installed
 * here): the guard calls next() or answers, as it would inside an Express app.
 */
async function expressStyleService(guard: PermissionGuard): Promise<Downstream> {
  const server: Server = createServer((req, res) =>
    guard.express(req, res, () => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ user: callerOf(req)?.username }));
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    async get(headers) {
      const res = await fetch(`${base}/reports`, { headers });
      return { status: res.status, body: await res.json() };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Nest (on Fastify): the guard in @UseGuards, its refusal thrown as an HttpException. */
async function nestService(guard: PermissionGuard): Promise<Downstream> {
  @Controller()
  class ReportsController {
    @Get('reports')
    @UseGuards(guard.nest)
    list(@Req() request: object) {
      return { user: callerOf(request)?.username };
    }
  }
  @Module({ controllers: [ReportsController] })
  class DownstreamModule {}
  const app = await NestFactory.create<NestFastifyApplication>(DownstreamModule, new FastifyAdapter(), {
    logger: false,
  });
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  return {
    async get(headers) {
      const res = await app.inject({ method: 'GET', url: '/reports', headers });
      return { status: res.statusCode, body: res.json() };
    },
    close: () => app.close(),
  };
}

const FRAMEWORKS = [
  ['Fastify preHandler', fastifyService],
  ['Express-style middleware', expressStyleService],
  ['Nest CanActivate', nestService],
] as const;

describe.each(BACKENDS)('client guards against a running service on $name', (backend) => {
  let app: TestApp;
  let url: string;
  let apiKey: string;
  let reader: { username: string; token: string };
  let other: { token: string };

  beforeAll(async () => {
    app = await startApp(backend);
    url = await listenOnLocalPort(app);
    apiKey = (await createApiKey(app, ['sys:token:introspect'])).key;
    await createRole(app, 'reporter', ['report:read']);
    await createRole(app, 'writer', ['report:write']);
    const a = await createActiveUser(app, { roles: ['reporter'] });
    reader = { username: a.username, token: await app.token(a.username, a.password) };
    const b = await createActiveUser(app, { roles: ['writer'] });
    other = { token: await app.token(b.username, b.password) };
  });
  afterAll(() => app.close());

  describe.each(FRAMEWORKS)('%s', (_name, start) => {
    let client: LoginPolicyClient;
    let service: Downstream;

    beforeEach(async () => {
      ({ client } = countingClient(url, { apiKey }));
      service = await start(client.requirePermission('report:read'));
    });
    afterEach(() => service.close());

    it('lets a token holding the code through, by either header, and tells the handler who it is', async () => {
      expect(await service.get({ 'admin-token': reader.token })).toEqual({
        status: 200,
        body: { user: reader.username },
      });
      expect(await service.get({ authorization: `Bearer ${reader.token}` })).toEqual({
        status: 200,
        body: { user: reader.username },
      });
    });

    it("refuses a token without the code with 403 FORBIDDEN in the service's envelope", async () => {
      expect(await service.get({ 'admin-token': other.token })).toEqual({
        status: 403,
        body: { success: false, code: 'FORBIDDEN', message: '没有权限', data: null },
      });
    });

    it('refuses no token and a dead one with 401 NOT_LOGGED_IN, in English when asked', async () => {
      expect(await service.get({})).toEqual({
        status: 401,
        body: { success: false, code: 'NOT_LOGGED_IN', message: '未登录或登录已过期', data: null },
      });
      expect(await service.get({ 'admin-token': 'not-a-token', 'accept-language': 'en' })).toEqual({
        status: 401,
        body: {
          success: false,
          code: 'NOT_LOGGED_IN',
          message: 'Not logged in, or the session has expired',
          data: null,
        },
      });
    });

    it('answers 503 SERVICE_UNAVAILABLE, never the route, when the service cannot be asked', async () => {
      const unreachable = countingClient('http://127.0.0.1:9', { apiKey }).client;
      const cut = await start(unreachable.requirePermission('report:read'));
      try {
        expect(await cut.get({ 'admin-token': reader.token })).toEqual({
          status: 503,
          body: { success: false, code: 'SERVICE_UNAVAILABLE', message: '服务暂时不可用,请稍后再试', data: null },
        });
      } finally {
        await cut.close();
      }
    });
  });

  it('a session ended at the service is refused by the guard once the cache time has passed', async () => {
    const { client, clock } = countingClient(url, { apiKey, introspectionCache: { ttlMs: 2_000 } });
    const service = await fastifyService(client.requirePermission('report:read'));
    try {
      const user = await createActiveUser(app, { roles: ['reporter'] });
      const token = await app.token(user.username, user.password);
      expect((await service.get({ 'admin-token': token })).status).toBe(200);
      await app.post('/sys/logout', {}, { token });
      expect((await service.get({ 'admin-token': token })).status).toBe(200);
      clock.now += 2_000;
      expect(await service.get({ 'admin-token': token })).toMatchObject({
        status: 401,
        body: { code: 'NOT_LOGGED_IN' },
      });
    } finally {
      await service.close();
    }
  });

  it('refuses a temporary token (a password change is due) with 403 TEMP_TOKEN_FORBIDDEN, even holding the code', async () => {
    await app.saveUserStrategy({ forceUpdatePassword: true });
    const { client } = countingClient(url, { apiKey });
    const service = await fastifyService(client.requirePermission('report:read'));
    try {
      const user = await createUser(app, { roles: ['reporter'] });
      const login = await app.login(user.username, user.password);
      expect(login.body.data!.tempUser).toBe(true);
      expect(await service.get({ 'admin-token': login.body.data!.accessToken })).toEqual({
        status: 403,
        body: { success: false, code: 'TEMP_TOKEN_FORBIDDEN', message: '请先修改密码', data: null },
      });
    } finally {
      await service.close();
      await app.saveUserStrategy({ forceUpdatePassword: false });
    }
  });
});
