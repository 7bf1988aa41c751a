import { isIP } from 'node:net';

export interface IpRange {
  address: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

/**
 * A CIDR range (`10.0.0.0/8`, `2001:db8::/32`) or a single address (a range of one), as
 * net.BlockList takes it; null for anything else (a prefix past the family's length, an IPv6 zone,
 * a host name, spaces).
 */
export function rangeOf(text: string): IpRange | null {
  const match = /^([0-9A-Fa-f:.]+)(?:\/(\d{1,3}))?$/.exec(text);
  if (!match) return null;
  const [, address, bits] = match;
  const version = isIP(address);
  if (version === 0) return null;
  const max = version === 4 ? 32 : 128;
  const prefix = bits === undefined ? max : Number(bits);
  if (prefix > max) return null;
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}
