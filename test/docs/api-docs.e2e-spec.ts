import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';

import { Body, Controller, HttpCode, Module, Post } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';

import { openApiDocument } from '../../src/app.setup';
import { ApiDoc, controllerRoutes } from '../../src/common/api-docs';
import { RequirePermissions } from '../../src/common/auth-context';
import { ErrorCode, HTTP_STATUS } from '../../src/common/error-code';
import { NoInputDto } from '../../src/common/validation.pipe';
import { ME_INFO_RESPONSE } from '../../src/user-account/dto/user.dto';
import { MeController } from '../../src/user-account/me.controller';
import { sqliteMemory } from '../support/backends';
import { ADMIN_PASSWORD, listenOnLocalPort, startApp, TestApp } from '../support/test-app';

/*
 * Every controller route, as Nest's module graph registers it, is documented in /docs with
 * a summary, its access (permission codes or an explicit public marker), whether a temporary token
 * may call it, the error codes it can answer (each with an envelope response at its HTTP status)
 * and the schema of the OK answer's `data`. A route added without @ApiDoc fails here. The document
 * does not depend on the backend, so this runs on the embedded one only.
 */

jest.setTimeout(60_000);

/** What is missing from the documentation of each route; empty when every route is complete. */
function gaps(app: TestApp, document: OpenAPIObject): string[] {
  const problems: string[] = [];
  const codes = new Set<string>(Object.values(ErrorCode));
  for (const route of controllerRoutes(app.app)) {
    const name = `${route.method.toUpperCase()} ${route.path}`;
    const op = (document.paths[route.path] as Record<string, any> | undefined)?.[route.method];
    if (!op) {
      problems.push(`${name}: not in the document`);
      continue;
    }
    if (!op.summary?.trim()) problems.push(`${name}: no summary (@ApiDoc)`);
    // Access is one of three: public, a session (x-permission: codes, [] = any logged-in caller), or a
    // token of its own from the configuration (x-bearer-token, e.g. /metrics' METRICS_TOKEN).
    const bearer = op['x-bearer-token'];
    if (bearer !== undefined) {
      const scheme = document.components?.securitySchemes?.[bearer] as { type?: string; scheme?: string } | undefined;
      if (op['x-public'] !== false || op['x-permission'] !== null)
        problems.push(`${name}: a bearer token route marked public or with a permission`);
      if (scheme?.type !== 'http' || scheme.scheme !== 'bearer')
        problems.push(`${name}: no bearer security scheme ${bearer}`);
      if (JSON.stringify(op.security) !== JSON.stringify([{ [bearer]: [] }]))
        problems.push(`${name}: security is not ${bearer}`);
    } else {
      if (op['x-public'] !== true && !Array.isArray(op['x-permission']))
        problems.push(`${name}: no permission information`);
      if (op['x-public'] === true && op['x-permission'] !== null)
        problems.push(`${name}: public and a permission at once`);
    }
    if (typeof op['x-temp-token'] !== 'boolean') problems.push(`${name}: no x-temp-token`);
    if (!/\*\*Access:\*\*/.test(op.description ?? '')) problems.push(`${name}: access not described`);
    const errors: string[] = op['x-error-codes'] ?? [];
    if (!errors.length) problems.push(`${name}: no error codes`);
    for (const code of errors) {
      if (!codes.has(code)) {
        problems.push(`${name}: unknown error code ${code}`);
        continue;
      }
      const schema = op.responses?.[String(HTTP_STATUS[code as ErrorCode])]?.content?.['application/json']?.schema;
      if (!schema?.properties?.code?.enum?.includes(code))
        problems.push(`${name}: no ${HTTP_STATUS[code as ErrorCode]} response for ${code}`);
    }
    const ok = op.responses?.['200']?.content;
    const json = ok?.['application/json']?.schema;
    if (!ok) problems.push(`${name}: no response schema`);
    else if (json && !json.properties?.data) problems.push(`${name}: no schema for data`);
    else if (!json && !Object.values(ok).some((c: any) => c?.schema)) problems.push(`${name}: no response schema`);
  }
  return problems;
}

@Controller('test-undocumented')
class UndocumentedController {
  @Post('plain')
  @HttpCode(200)
  @RequirePermissions('sys:user:list')
  plain(@Body() _body: NoInputDto) {
    return null;
  }

  @Post('documented')
  @HttpCode(200)
  @RequirePermissions('sys:user:list')
  @ApiDoc('A documented route', { data: null, errors: [ErrorCode.NOT_FOUND] })
  documented(@Body() _body: NoInputDto) {
    return null;
  }
}

@Module({ controllers: [UndocumentedController] })
class UndocumentedModule {}

describe('OpenAPI document: every operation documented', () => {
  let app: TestApp;
  let document: OpenAPIObject;

  beforeAll(async () => {
    app = await startApp(sqliteMemory);
    document = openApiDocument(app.app);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('walks the routes the router has (a walker that sees nothing would pass anything)', () => {
    const routes = controllerRoutes(app.app).map((r) => `${r.method} ${r.path}`);
    expect(routes.length).toBeGreaterThanOrEqual(35);
    expect(routes).toEqual(
      expect.arrayContaining([
        'post /sys/login',
        'post /sys/user/create',
        'get /sys/message/stream',
        'get /health',
        'get /metrics',
        'post /sys/loginLog/export',
      ]),
    );
  });

  it('has a summary, access, temporary-token access, error codes and a data schema on every route', () => {
    expect(gaps(app, document)).toEqual([]);
  });

  it("derives access and codes from the route's own decorators and TEMP_URIS", () => {
    const op = (path: string) => (document.paths[path] as any).post;
    expect(op('/sys/user/lock')).toMatchObject({
      'x-public': false,
      'x-permission': ['sys:user:lock'],
      'x-temp-token': false,
      'x-api-key': true,
      security: [{ 'Admin-Token': [] }, { 'Api-Key': [] }],
    });
    // An API key reaches only routes with codes, never the caller's own account nor the keys.
    for (const path of ['/sys/me/info', '/sys/logout', '/sys/apiKey/list', '/sys/me/mfa/setup']) {
      expect([path, op(path)['x-api-key'], op(path).security]).toEqual([path, false, [{ 'Admin-Token': [] }]]);
    }
    expect(document.components?.securitySchemes?.['Api-Key']).toEqual({
      type: 'apiKey',
      in: 'header',
      name: 'X-Api-Key',
    });
    expect(op('/sys/user/lock')['x-error-codes']).toEqual(
      expect.arrayContaining([
        'VALIDATION_FAILED',
        'NOT_LOGGED_IN',
        'KICKED_OUT',
        'TEMP_TOKEN_FORBIDDEN',
        'FORBIDDEN',
        'NOT_FOUND',
        'INTERNAL',
      ]),
    );
    expect(op('/sys/user/lock').responses['403'].content['application/json'].schema.properties.code.enum).toEqual([
      'TEMP_TOKEN_FORBIDDEN',
      'FORBIDDEN',
      'REAUTH_REQUIRED',
    ]);
    // A fresh proof always on the second-factor changes, on changes with reauthForAdmin, never on lists.
    expect(op('/sys/user/lock').description).toContain('reauthForAdmin');
    expect(op('/sys/me/mfa/setup')['x-error-codes']).toContain('REAUTH_REQUIRED');
    expect(op('/sys/me/mfa/setup').description).toContain('**Fresh proof:** needed (');
    expect(op('/sys/user/list')['x-error-codes']).not.toContain('REAUTH_REQUIRED');
    expect(op('/sys/me/reauth')['x-error-codes']).not.toContain('REAUTH_REQUIRED');
    expect(op('/sys/user/lock').responses['200'].content['application/json'].schema.properties.data.enum).toEqual([
      null,
    ]);
    // TEMP_URIS and @AllowsTempToken
    expect(op('/sys/me/pass/update')).toMatchObject({ 'x-permission': [], 'x-temp-token': true });
    expect(op('/sys/me/pass/update')['x-error-codes']).not.toContain('TEMP_TOKEN_FORBIDDEN');
    expect(op('/sys/me/mfa/setup')['x-temp-token']).toBe(true);
    // public, throttled
    expect(op('/sys/login')).toMatchObject({ 'x-public': true, 'x-permission': null, security: [] });
    expect(op('/sys/login')['x-error-codes']).toEqual(
      expect.arrayContaining(['CAPTCHA_INVALID', 'BAD_CREDENTIALS', 'RATE_LIMITED']),
    );
    expect(op('/sys/login')['x-error-codes']).not.toContain('NOT_LOGGED_IN');
    expect(op('/sys/login').description).toContain('no token needed');
    expect(op('/sys/user/lock').description).toContain('`sys:user:lock`');
    // CSV exports: a text/csv answer, errors in the envelope, the export permission
    for (const path of ['/sys/loginLog/export', '/sys/auditLog/export']) {
      expect(Object.keys(op(path).responses['200'].content)).toEqual(['text/csv']);
      expect(op(path)['x-permission']).toEqual([
        path === '/sys/loginLog/export' ? 'sys:loginLog:export' : 'sys:auditLog:export',
      ]);
      expect(op(path).responses['400'].content['application/json'].schema.properties.code.enum).toContain(
        'VALIDATION_FAILED',
      );
    }
    // VALIDATION_FAILED carries data.errors
    expect(op('/sys/user/lock').responses['400'].content['application/json'].schema.properties.data.allOf).toEqual([
      { $ref: '#/components/schemas/ValidationFailedDto' },
    ]);
  });

  it('documents /metrics as what it is: neither public nor a session route, a bearer METRICS_TOKEN', () => {
    const metrics = (document.paths['/metrics'] as any)?.get;
    expect(metrics).toMatchObject({
      'x-public': false,
      'x-permission': null,
      'x-bearer-token': 'METRICS_TOKEN',
      'x-temp-token': false,
      security: [{ METRICS_TOKEN: [] }],
    });
    expect(document.components?.securitySchemes?.METRICS_TOKEN).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(metrics.summary).toContain('METRICS_TOKEN');
    expect(metrics.description).toContain('Authorization: Bearer <METRICS_TOKEN>');
    expect(metrics.description).not.toContain('no token needed');
    // A wrong token is NOT_LOGGED_IN, an unset variable NOT_FOUND; nothing of a session's codes.
    expect(metrics['x-error-codes']).toEqual(expect.arrayContaining(['NOT_LOGGED_IN', 'NOT_FOUND']));
    for (const code of ['KICKED_OUT', 'IP_MISMATCH', 'TEMP_TOKEN_FORBIDDEN', 'FORBIDDEN', 'VALIDATION_FAILED']) {
      expect(metrics['x-error-codes']).not.toContain(code);
    }
    expect(Object.keys(metrics.responses['200'].content)).toEqual(['text/plain']);
    expect(metrics.responses['401'].content['application/json'].schema.properties.code.enum).toEqual(['NOT_LOGGED_IN']);
  });

  it("sends /sys/me/info through a serializer that carries exactly MeInfoDto's fields", async () => {
    // ME_INFO_RESPONSE drops what it does not list: a field documented (or returned) but not in it
    // would silently vanish from the answer, one in it but not documented would be sent undocumented.
    const documented = (document.components?.schemas?.MeInfoDto as any).properties as Record<string, any>;
    const typeOf = (p: any) =>
      p.type === 'array' ? `array of ${p.items.type}` : p.nullable ? `${p.type} or null` : p.type;
    const serialized = ME_INFO_RESPONSE[200].properties.data.properties as Record<string, any>;
    const serializedType = (p: any) =>
      p.type === 'array'
        ? `array of ${p.items.type}`
        : Array.isArray(p.type)
          ? `${p.type.find((t: string) => t !== 'null')} or null`
          : p.type;
    expect(Object.fromEntries(Object.entries(serialized).map(([k, p]) => [k, serializedType(p)]))).toEqual(
      Object.fromEntries(Object.entries(documented).map(([k, p]) => [k, typeOf(p)])),
    );
    // And the handler answers every one of them, with the documented types.
    const { body } = await app.post('/sys/me/info', {}, { token: await app.adminToken() });
    expect(body).toMatchObject({ success: true, code: 'OK' });
    expect(Object.keys(body.data).sort()).toEqual(Object.keys(documented).sort());
    for (const [key, p] of Object.entries(documented)) {
      const value = body.data[key];
      const actual = Array.isArray(value) ? `array of ${typeof value[0]}` : value === null ? 'null' : typeof value;
      // JSON has one number type: an integer field arrives as a number, and a whole one.
      expect(typeOf(p).replace('integer', 'number')).toContain(actual);
      if (p.type === 'integer') expect(Number.isInteger(value)).toBe(true);
    }
    // The route does answer through the schema: a field slipped into the handler's result (as a
    // future change to the handler or the session's profile might) is not sent.
    const token = await app.adminToken();
    const info = MeController.prototype.info;
    const handler = jest.spyOn(MeController.prototype, 'info').mockImplementation(async function (
      this: MeController,
      request,
    ) {
      return { ...(await info.call(this, request)), passwordHash: 'not for the client' };
    });
    try {
      const slipped = await app.post('/sys/me/info', {}, { token });
      expect(handler).toHaveBeenCalled();
      expect(slipped.body).toMatchObject({ success: true, data: { username: 'admin' } });
      expect(slipped.body.data).not.toHaveProperty('passwordHash');
    } finally {
      handler.mockRestore();
    }
  });

  it('serves the same at /docs-json, with the recipe for a token', async () => {
    const res = await app.app.inject({ method: 'GET', url: '/docs-json' });
    const served = res.json();
    expect(served.paths['/sys/user/list'].post['x-permission']).toEqual(['sys:user:list']);
    expect(served.info.description).toContain('tools/dev-token.mjs');
    expect(served.info.description).toContain('CAPTCHA_ENABLED=false');
  });

  it('finds a route added without @ApiDoc', async () => {
    const other = await startApp(sqliteMemory, { imports: [UndocumentedModule] });
    try {
      const problems = gaps(other, openApiDocument(other.app));
      expect(problems.filter((p) => p.startsWith('POST /test-undocumented/plain'))).toEqual([
        'POST /test-undocumented/plain: no summary (@ApiDoc)',
        'POST /test-undocumented/plain: no response schema',
      ]);
      expect(problems.filter((p) => p.includes('/test-undocumented/documented'))).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it("the recipe's script logs in (captcha off) and its token authorises a call", async () => {
    const base = await listenOnLocalPort(app);
    const { stdout } = await promisify(execFile)(process.execPath, [
      resolve(__dirname, '../../tools/dev-token.mjs'),
      base,
      'admin',
      ADMIN_PASSWORD,
    ]);
    const token = stdout.trim();
    expect(token.length).toBeGreaterThan(30);
    const me = await app.post('/sys/me/info', {}, { token });
    expect(me.body).toMatchObject({ success: true, data: { username: 'admin' } });
  });
});
