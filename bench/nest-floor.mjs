// The Nest floor of bench item (3b): Nest 12 + Fastify with one global guard that makes the one
// store read (the bare route's) and one route answering the envelope — no service code. What
// /sys/me/info costs beyond this is the service's own. Started by run.mjs with the bare route's
// arguments:
//   node bench/nest-floor.mjs <port> <redis-url> <key> | <port> memory <json>
import 'reflect-metadata';

import { Controller, HttpCode, Injectable, Module, Post, Req } from '@nestjs/common';
import { APP_GUARD, NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';

import { sessionReader } from './session-reader.mjs';

const [port, where, keyOrValue] = process.argv.slice(2);
const reader = await sessionReader(where, keyOrValue);

// Plain JavaScript: the decorators are applied by hand, as TypeScript would emit them.
class StoreGuard {
  async canActivate(context) {
    const value = await reader.read();
    if (value === null) return false;
    context.switchToHttp().getRequest().session = value;
    return true;
  }
}
Injectable()(StoreGuard);

class FloorController {
  floor(request) {
    return { success: true, code: 'OK', message: '', data: JSON.parse(request.session) };
  }
}
const floor = Object.getOwnPropertyDescriptor(FloorController.prototype, 'floor');
Req()(FloorController.prototype, 'floor', 0);
for (const decorate of [Post('floor'), HttpCode(200)]) decorate(FloorController.prototype, 'floor', floor);
Reflect.defineMetadata('design:paramtypes', [Object], FloorController.prototype, 'floor');
Controller()(FloorController);

class FloorModule {}
Module({ controllers: [FloorController], providers: [{ provide: APP_GUARD, useClass: StoreGuard }] })(FloorModule);

const app = await NestFactory.create(FloorModule, new FastifyAdapter(), { logger: false });
await app.listen(Number(port), '127.0.0.1');
process.send?.('ready');
process.on('SIGTERM', async () => {
  await app.close();
  await reader.close();
  process.exit(0);
});
