import type { FactoryProvider, Type } from '@nestjs/common';
import type { ModuleRef } from '@nestjs/core';

/**
 * A place where other modules add their own implementations of T: login steps, notification
 * channels, the second factor's answers to the user list and to step-up. A module plugs in by
 * declaring `POINT.provide(MyClass)` among its providers, beside MyClass itself, so the extension is
 * a provider of the module that adds it and shows in the module graph like any other. Each module
 * may declare the token once, with any number of classes. The owning service collects them all
 * when the application starts (onModuleInit), so nothing depends on who called a setter first.
 */
export class ExtensionPoint<T> {
  readonly token: symbol;

  constructor(readonly name: string) {
    this.token = Symbol(name);
  }

  /** The provider a module declares to add `types` (each also one of its providers). */
  provide(...types: Type<T>[]): FactoryProvider<T[]> {
    return { provide: this.token, inject: types, useFactory: (...extensions: T[]) => extensions };
  }

  /**
   * Every extension of every module in the application, module by module in the order Nest
   * registered them. The owner's own module declares the point too (empty or with its built-ins),
   * so the token exists wherever the owner does.
   */
  collect(modules: ModuleRef): T[] {
    return modules.get<unknown, T[]>(this.token, { strict: false, each: true }).flat();
  }

  /** For a point that takes at most one extension: a second one stops the start. */
  collectOne(modules: ModuleRef): T | undefined {
    const all = this.collect(modules);
    if (all.length > 1) throw new Error(`${this.name} takes one extension, got ${all.length}`);
    return all[0];
  }
}
