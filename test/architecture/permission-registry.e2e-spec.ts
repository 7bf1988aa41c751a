import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';

import { PERMISSIONS } from '../../src/common/auth-context';
import { PERMISSION_REGISTRY, PermissionCode, WIDENING_CODES } from '../../src/common/permissions';
import { sqliteMemory } from '../support/backends';
import { startApp, TestApp } from '../support/test-app';

/**
 * /sys/permission/list answers "every permission code the service knows" from one
 * registry (src/common/permissions.ts). RequirePermissions only takes codes of the registry (a type
 * error otherwise); this checks the other way round as well, on the running app: every code a
 * route requires is in the registry, and every code of the registry gates at least one route, so
 * the list offers nothing that gates nothing.
 */
describe('the permission registry and the routes', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp(sqliteMemory);
  });
  afterAll(() => app.close());

  /** path → required codes, for every route of every controller of the app. */
  function routeCodes(): Map<string, string[]> {
    const routes = new Map<string, string[]>();
    for (const module of app.app.get(ModulesContainer).values()) {
      for (const wrapper of module.controllers.values()) {
        const type = wrapper.metatype as (new (...args: unknown[]) => object) | null;
        if (!type) continue;
        const prefix = String(Reflect.getMetadata(PATH_METADATA, type) ?? '');
        for (const name of Object.getOwnPropertyNames(type.prototype)) {
          const handler = type.prototype[name];
          if (name === 'constructor' || typeof handler !== 'function') continue;
          const path = Reflect.getMetadata(PATH_METADATA, handler);
          if (path === undefined) continue;
          const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as number];
          const codes: string[] =
            Reflect.getMetadata(PERMISSIONS, handler) ?? Reflect.getMetadata(PERMISSIONS, type) ?? [];
          routes.set(`${method} /${prefix}/${path}`.replace(/\/+/g, '/'), codes);
        }
      }
    }
    return routes;
  }

  it('every code a route requires is in the registry, and every registry code gates a route', () => {
    const routes = routeCodes();
    expect(routes.size).toBeGreaterThan(20);
    const used = new Set([...routes.values()].flat());
    const known = new Set<string>(PERMISSION_REGISTRY.map((p) => p.code));
    expect([...used].filter((c) => !known.has(c))).toEqual([]);
    expect([...known].filter((c) => !used.has(c) && !WIDENING_CODES.includes(c as PermissionCode))).toEqual([]);
    expect(routes.get('POST /sys/user/update')).toEqual(['sys:user:update']);
    expect(routes.get('POST /sys/permission/list')).toEqual(['sys:role:list']);
  });

  it('codes are unique, and /sys/permission/list answers the registry as it is', async () => {
    expect(new Set(PERMISSION_REGISTRY.map((p) => p.code)).size).toBe(PERMISSION_REGISTRY.length);
    const res = await app.admin('/sys/permission/list');
    expect(res.body.data).toEqual(
      PERMISSION_REGISTRY.map(({ code, module, name }) => ({ code, module, name: name.zh })),
    );
  });
});
