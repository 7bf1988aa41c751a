import { Injectable, Module, OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { Test } from '@nestjs/testing';

import { ExtensionPoint } from './extension-point';

interface Greeter {
  greet(): string;
}

const GREETERS = new ExtensionPoint<Greeter>('GREETERS');
const ONE_GREETER = new ExtensionPoint<Greeter>('ONE_GREETER');

@Injectable()
class Hello implements Greeter {
  greet() {
    return 'hello';
  }
}

@Injectable()
class Hi implements Greeter {
  greet() {
    return 'hi';
  }
}

@Injectable()
class Salut implements Greeter {
  greet() {
    return 'salut';
  }
}

/** The owner: declares the point with its built-in and collects at start. */
@Injectable()
class Greetings implements OnModuleInit {
  all: Greeter[] = [];
  one: Greeter | undefined;
  constructor(private readonly modules: ModuleRef) {}
  onModuleInit() {
    this.all = GREETERS.collect(this.modules);
    this.one = ONE_GREETER.collectOne(this.modules);
  }
}

@Module({ providers: [Greetings, Hello, GREETERS.provide(Hello), ONE_GREETER.provide()], exports: [Greetings] })
class OwnerModule {}

@Module({ imports: [OwnerModule], providers: [Hi, Salut, GREETERS.provide(Hi, Salut)] })
class TwoMoreModule {}

@Module({ providers: [Salut, ONE_GREETER.provide(Salut)] })
class OneModule {}

@Module({ providers: [Hi, ONE_GREETER.provide(Hi)] })
class AnotherOneModule {}

async function start(...imports: unknown[]) {
  const moduleRef = await Test.createTestingModule({ imports: imports as never[] }).compile();
  await moduleRef.init();
  return moduleRef;
}

describe('ExtensionPoint', () => {
  it('collects what every module declared, module by module, each an instance of its own module', async () => {
    const app = await start(OwnerModule, TwoMoreModule);
    const greetings = app.get(Greetings);
    expect(greetings.all.map((g) => g.greet())).toEqual(['hello', 'hi', 'salut']);
    expect(greetings.all[1]).toBe(app.get(Hi, { strict: false }));
    await app.close();
  });

  it('the owner alone finds its built-ins; a point declared empty gives nothing', async () => {
    const app = await start(OwnerModule);
    expect(app.get(Greetings).all.map((g) => g.greet())).toEqual(['hello']);
    expect(app.get(Greetings).one).toBeUndefined();
    await app.close();
  });

  it('a point for at most one takes one, and refuses to start with two', async () => {
    const app = await start(OwnerModule, OneModule);
    expect(app.get(Greetings).one?.greet()).toBe('salut');
    await app.close();
    await expect(start(OwnerModule, OneModule, AnotherOneModule)).rejects.toThrow(
      'ONE_GREETER takes one extension, got 2',
    );
  });
});
