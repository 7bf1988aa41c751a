import { isIP } from 'node:net';

import type { FastifyRequest } from 'fastify';

const unmapped = (address: string | undefined): string => (address ?? '').trim().replace(/^::ffff:(?=\d+\.)/i, '');

/**
 * The client IP as Fastify resolved it from TRUST_PROXY: the socket address, or the
 * X-Forwarded-For entry the trusted proxies point at. Whatever that entry holds is client-written
 * text when a proxy passes it through unchecked: a value that is not an IP address is never used
 * (nor stored, nor throttled on); the socket address stands in for it.
 */
export function clientIp(request: FastifyRequest): string {
  return ipAddress(request.ip) ?? ipAddress(request.socket?.remoteAddress) ?? 'unknown';
}

/**
 * An address in the one form sessions store and compare (an IPv4-mapped IPv6 address as IPv4,
 * lower case), or null when the text is no IP address: also for an address a client names itself,
 * such as the `ip` of a token introspection.
 */
export function ipAddress(text: string | undefined): string | null {
  const address = unmapped(text);
  return isAddress(address) ? address.toLowerCase() : null;
}

/** An IPv4 or IPv6 address, without an IPv6 zone (`fe80::1%eth0`: the zone is free text of any length). */
const isAddress = (value: string): boolean => isIP(value) !== 0 && !value.includes('%');

export function userAgent(request: FastifyRequest): string {
  const ua = request.headers['user-agent'];
  return typeof ua === 'string' ? ua.slice(0, 512) : '';
}
