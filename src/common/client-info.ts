import type { FastifyRequest } from 'fastify';

/** IP as Fastify resolved it (X-Forwarded-For is honoured only when TRUST_PROXY is on). */
export function clientIp(request: FastifyRequest): string {
  return (request.ip ?? '').replace(/^::ffff:/, '') || 'unknown';
}

export function userAgent(request: FastifyRequest): string {
  const ua = request.headers['user-agent'];
  return typeof ua === 'string' ? ua.slice(0, 512) : '';
}
