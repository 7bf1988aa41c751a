import { Injectable, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost, ModuleRef } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';

import { AllExceptionsFilter } from '../common/all-exceptions.filter';
import { addFastLane } from '../common/fast-lane';
import { successEnvelope } from '../common/http-adapter';
import { SessionAuthenticator } from '../session/session-authenticator';
import { MeController } from './me.controller';

const ROUTE = '/sys/me/info';

/**
 * The console polls /sys/me/info, so it is answered in a fast lane (common/fast-lane.ts): the same
 * check of the caller the guard makes (the route asks nothing more than a live session; a temporary
 * token reaches it through TEMP_URIS, an API key never does), the controller's own handler, and
 * every refusal answered as the exception filter answers it, FORBIDDEN audited included. The lane
 * answers its refusals itself because a token's check cannot run twice: a kick-out is answered once.
 */
@Injectable()
export class MeInfoFastLane implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly authenticator: SessionAuthenticator,
    private readonly errors: AllExceptionsFilter,
    private readonly modules: ModuleRef,
  ) {}

  onModuleInit() {
    const me = this.modules.get(MeController);
    addFastLane(this.adapterHost.httpAdapter?.getInstance<FastifyInstance>(), ROUTE, async (request, reply) => {
      let data;
      try {
        request.auth = await this.authenticator.callerOf(request);
        data = await me.info(request);
      } catch (err) {
        this.errors.answer(err, request, reply);
        return true;
      }
      await reply.send(successEnvelope(data, reply));
      return true;
    });
  }
}
