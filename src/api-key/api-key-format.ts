import { hash, randomInt } from 'node:crypto';

import type { FastifyRequest } from 'fastify';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 43 base62 characters carry log2(62) × 43 > 256 random bits. */
const RANDOM_CHARACTERS = 43;
export const API_KEY_PREFIX = 'lps_';
/**
 * The exact shape of a key. A session token (43 characters of base64url) never has it, so a Bearer
 * value is a key only when it matches, and a session token that happens to begin with `lps_` stays
 * a session token.
 */
const API_KEY = /^lps_[0-9A-Za-z]{43}$/;
/** What the list shows of a key: `lps_` and its first four random characters. */
export const PREFIX_LENGTH = 8;

/** A new key: `lps_` and 43 characters drawn uniformly from base62 (randomInt rejects biased draws). */
export function newApiKey(): string {
  let key = API_KEY_PREFIX;
  for (let i = 0; i < RANDOM_CHARACTERS; i += 1) key += BASE62[randomInt(BASE62.length)];
  return key;
}

/**
 * How a key is stored and looked up: its SHA-256. A key is 256 random bits, so a fast unsalted hash
 * is enough: nobody can search that space from a copy of the table, and BCrypt, which protects
 * guessable passwords, would cost every request a compare (docs/security.md#api-keys).
 */
export const hashApiKey = (key: string): string => hash('sha256', key, 'hex');

/**
 * The API key a request carries: `X-Api-Key`, or `Authorization: Bearer lps_…` when no `Admin-Token`
 * is sent (Admin-Token wins over Bearer, as for sessions). undefined: the request carries none (its
 * session token is read as usual); null: an `X-Api-Key` that is no key, refused as an unknown key.
 */
export function apiKeyIn(request: FastifyRequest): string | null | undefined {
  const header = request.headers['x-api-key'];
  if (header !== undefined) {
    const value = (Array.isArray(header) ? header[0] : header)?.trim() ?? '';
    return API_KEY.test(value) ? value : null;
  }
  const token = request.headers['admin-token'];
  if ((Array.isArray(token) ? token[0] : token)?.trim()) return undefined;
  const auth = request.headers.authorization;
  const bearer = typeof auth === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(auth)?.[1] : undefined;
  return bearer !== undefined && API_KEY.test(bearer) ? bearer : undefined;
}
