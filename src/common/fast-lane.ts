import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * Answers a request to one route itself and resolves true, or resolves false to leave it to the
 * Nest route (which then answers it as every route does).
 */
export type FastLane = (request: FastifyRequest, reply: FastifyReply) => Promise<boolean>;

/**
 * Runs `lane` for POST `url` in Fastify's preHandler, after the body is parsed and before Nest's
 * router, guard and pipes, which cost a hot route more than its answer (docs/benchmarks.md).
 * A lane that throws leaves the request to the Nest route, so it must throw only before anything
 * it did would change the route's answer.
 */
export function addFastLane(fastify: FastifyInstance | undefined, url: string, lane: FastLane): void {
  fastify?.addHook('preHandler', (request, reply, done) => {
    if (request.routeOptions.url !== url || request.method !== 'POST') return done();
    lane(request, reply).then(
      (answered) => answered || done(),
      () => done(),
    );
  });
}
