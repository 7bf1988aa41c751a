import { Injectable, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost, ModuleRef } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';

import { apiKeyIn } from '../api-key/api-key-format';
import { AllExceptionsFilter } from '../common/all-exceptions.filter';
import { addFastLane } from '../common/fast-lane';
import { successEnvelope } from '../common/http-adapter';
import { SessionAuthenticator } from '../session/session-authenticator';
import { MeController } from './me.controller';

const ROUTE = '/sys/me/info';

/**
 * The console polls /sys/me/info, so a session's request to it is answered in a fast lane
 * (common/fast-lane.ts): the same authentication the guard runs (the route asks nothing more of its
 * caller than a live session; a temporary token reaches it through TEMP_URIS), the controller's
 * own handler, and every refusal answered here as the exception filter answers it — once a token's
 * check has run it cannot run again (a kick-out is answered once). A request carrying an API key,
 * which never reaches /sys/me/* and whose refusal is audited, goes on to the Nest route.
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
      if (apiKeyIn(request) !== undefined) return false;
      let data;
      try {
        request.auth = await this.authenticator.authenticate(request);
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
