import type * as SimpleWebAuthn from '@simplewebauthn/server';

import { atFirstUse } from '../common/at-first-use';

/**
 * @simplewebauthn/server, loaded at the first passkey ceremony, with the certificate parsers it
 * brings: most instances never see a passkey.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const webauthn = atFirstUse(() => require('@simplewebauthn/server') as typeof SimpleWebAuthn);

/** Base64url text; padding is tolerated, as @simplewebauthn's own check tolerates it. */
const BASE64URL = /^[A-Za-z0-9_-]*$/;

/**
 * Base64url as WebAuthn writes it, with Node's own codec, so that checking a request's shape or
 * storing a key loads nothing more.
 */
export const base64url = {
  isValid: (text: string): boolean => BASE64URL.test(text.replace(/=/g, '')),
  toBytes: (text: string): Uint8Array<ArrayBuffer> => new Uint8Array(Buffer.from(text, 'base64url')),
  fromBytes: (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64url'),
  fromUtf8: (text: string): string => Buffer.from(text, 'utf8').toString('base64url'),
};
