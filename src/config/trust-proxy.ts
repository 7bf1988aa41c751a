import { isIP } from 'node:net';

/**
 * What Fastify's `trustProxy` gets. `false`: X-Forwarded-For is ignored;
 * a number n: the n proxies nearest to the service are trusted, so the client IP is the address the
 * n-th of them appended (counted from the right of X-Forwarded-For); a list: the proxies at those
 * addresses / CIDRs are trusted, and the client IP is the right-most address not among them.
 * Never Fastify's `true`, which trusts every hop and so takes the LEFT-most entry: the one a client
 * writes itself.
 */
export type TrustProxy = false | number | string[];

const MAX_HOPS = 100;

/** Parses TRUST_PROXY (`false`, `true` = 1 hop, a hop count, or a comma-separated address / CIDR list); null when invalid. */
export function parseTrustProxy(raw: string): TrustProxy | null {
  const value = raw.trim();
  if (value === 'false') return false;
  if (value === 'true') return 1;
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    if (hops > MAX_HOPS) return null;
    return hops === 0 ? false : hops;
  }
  const entries = value.split(',').map((s) => s.trim());
  if (!entries.length || entries.some((e) => !isAddressOrCidr(e))) return null;
  return entries;
}

function isAddressOrCidr(entry: string): boolean {
  const [address, prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (!family || rest.length) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  // A /0 would trust every address (and Fastify's proxy-addr refuses it at start).
  return Number(prefix) >= 1 && Number(prefix) <= (family === 4 ? 32 : 128);
}

export const TRUST_PROXY_RULE =
  'TRUST_PROXY must be false, true (one proxy), a number of proxies (0-100), or a comma-separated list of proxy addresses / CIDRs';

/**
 * The value for `new FastifyAdapter({ trustProxy })`. A hop count becomes a function: Fastify 5.12
 * refuses plain numbers (it trusts nothing for them), and its `true` would trust every hop.
 */
export function fastifyTrustProxy(value: TrustProxy): false | string[] | ((address: string, hop: number) => boolean) {
  if (typeof value !== 'number') return value;
  return (_address, hop) => hop < value;
}
