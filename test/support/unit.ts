import 'reflect-metadata';

import type { InjectionToken, Type } from '@nestjs/common';
import { OPTIONAL_DEPS_METADATA, PARAMTYPES_METADATA, SELF_DECLARED_DEPS_METADATA } from '@nestjs/common/constants';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { Test, TestingModule } from '@nestjs/testing';

/** Names Nest may probe on a provider, and jest on a value it prints: a stand-in answers them with undefined. */
const PROBED = new Set([
  'then',
  'constructor',
  'toJSON',
  'asymmetricMatch',
  'nodeType',
  '$$typeof',
  'onModuleInit',
  'onApplicationBootstrap',
  'onModuleDestroy',
  'beforeApplicationShutdown',
  'onApplicationShutdown',
]);

/** Classes whose run-time name is not the one they are imported by (eventemitter2 names its class EventEmitter). */
const IMPORTED_AS = new Map<unknown, string>([[EventEmitter2, 'EventEmitter2']]);

/** How a spec names a dependency: a class as it is imported, a symbol by its description, a string as it is. */
function nameOf(token: InjectionToken): string {
  if (typeof token === 'function') return IMPORTED_AS.get(token) ?? token.name;
  if (typeof token === 'symbol') return token.description ?? token.toString();
  return String(token);
}

/**
 * For a dependency the spec gave no fake: each method throws when called, naming the service and the
 * method, so that a spec which needs one more fake says which instead of failing on `undefined`.
 */
function unfaked(service: string, dependency: string): object {
  return new Proxy(
    {},
    {
      get: (_target, prop) => {
        if (typeof prop === 'symbol' || PROBED.has(prop)) return undefined;
        return () => {
          throw new Error(`${service} called ${dependency}.${prop}, which the spec gave no fake for`);
        };
      },
    },
  );
}

export interface Unit<T, F> {
  service: T;
  /** The fakes as given, to read what the service did to them. */
  fakes: F;
  moduleRef: TestingModule;
}

/**
 * A service built by Nest from its class with fakes for its constructor's dependencies, in one line:
 * `const { service } = await unit(LockoutService, { LoginLogService: logs, Clock: clock })`. Each key
 * names one dependency as nameOf does (`Clock`, `COMPARE_SLOT_LEASE_MS`); a key that names none fails
 * the build (a typo or a dependency gone), an optional dependency without a fake is left out, and any
 * other dependency without one gets a stand-in that fails when used (unfaked).
 */
export async function unit<T, F extends Record<string, unknown>>(
  serviceClass: Type<T>,
  fakes: F = {} as F,
): Promise<Unit<T, F>> {
  const types: InjectionToken[] = Reflect.getMetadata(PARAMTYPES_METADATA, serviceClass) ?? [];
  const declared: { index: number; param: InjectionToken }[] =
    Reflect.getMetadata(SELF_DECLARED_DEPS_METADATA, serviceClass) ?? [];
  const optional: number[] = Reflect.getMetadata(OPTIONAL_DEPS_METADATA, serviceClass) ?? [];
  const tokens = types.map((type, index) => declared.find((d) => d.index === index)?.param ?? type);
  const names = tokens.map(nameOf);
  const unknown = Object.keys(fakes).filter((key) => !names.includes(key));
  if (unknown.length) {
    throw new Error(`${serviceClass.name} takes no ${unknown.join(', ')}; it takes ${names.join(', ') || 'nothing'}`);
  }
  const providers = tokens.flatMap((token, index) => {
    const name = names[index];
    if (name in fakes) return [{ provide: token, useValue: fakes[name] }];
    if (optional.includes(index)) return [];
    return [{ provide: token, useValue: unfaked(serviceClass.name, name) }];
  });
  const moduleRef = await Test.createTestingModule({ providers: [serviceClass, ...providers] }).compile();
  return { service: moduleRef.get(serviceClass), fakes, moduleRef };
}
