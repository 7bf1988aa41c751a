import { createHash, generateKeyPairSync, KeyObject, randomBytes, sign } from 'node:crypto';

import { isoCBOR } from '@simplewebauthn/server/helpers';

const b64url = (bytes: Uint8Array | Buffer | string) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();

/** One credential the authenticator holds. */
export interface SoftCredential {
  id: string;
  rpId: string;
  /** The user handle (base64url) the RP gave at registration. */
  userHandle: string;
  privateKey: KeyObject;
  counter: number;
}

interface CreationOptions {
  challenge: string;
  rp: { id?: string };
  user: { id: string };
}

interface RequestOptions {
  challenge: string;
  rpId?: string;
  allowCredentials?: { id: string }[];
}

/**
 * A software passkey authenticator for the e2e tests: ES256 keys from node:crypto, "none"
 * attestations and assertions built as a browser would hand them to the page (the JSON shapes of
 * @simplewebauthn/browser). The CBOR comes from the library's own encoder. Options to tamper with
 * the answer let the tests play the attacker.
 */
export class SoftAuthenticator {
  readonly credentials: SoftCredential[] = [];

  constructor(
    readonly origin: string,
    /** Whether the authenticator signs with a counter (0 for ones that keep none, like most synced passkeys). */
    private readonly counting = true,
  ) {}

  /** navigator.credentials.create(): a new ES256 credential for `options`. */
  register(options: CreationOptions, over: { origin?: string } = {}) {
    const rpId = options.rp.id!;
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const cose = isoCBOR.encode(
      new Map<number, number | Uint8Array>([
        [1, 2], // kty: EC2
        [3, -7], // alg: ES256
        [-1, 1], // crv: P-256
        [-2, Buffer.from(jwk.x!, 'base64url')],
        [-3, Buffer.from(jwk.y!, 'base64url')],
      ]),
    );
    const idBytes = randomBytes(16);
    const credential: SoftCredential = {
      id: b64url(idBytes),
      rpId,
      userHandle: options.user.id,
      privateKey,
      counter: this.counting ? 1 : 0,
    };
    const length = Buffer.alloc(2);
    length.writeUInt16BE(idBytes.length);
    const authData = Buffer.concat([
      sha256(rpId),
      Buffer.from([0x45]), // user present, user verified, attested credential data
      counterBytes(credential.counter),
      Buffer.alloc(16), // AAGUID: none
      length,
      idBytes,
      Buffer.from(cose),
    ]);
    const attestationObject = isoCBOR.encode(
      new Map<string, string | Uint8Array | Map<string, string>>([
        ['fmt', 'none'],
        ['attStmt', new Map<string, string>()],
        ['authData', authData],
      ]),
    );
    const clientDataJSON = JSON.stringify({
      type: 'webauthn.create',
      challenge: options.challenge,
      origin: over.origin ?? this.origin,
      crossOrigin: false,
    });
    this.credentials.push(credential);
    return {
      id: credential.id,
      rawId: credential.id,
      type: 'public-key',
      response: {
        clientDataJSON: b64url(clientDataJSON),
        attestationObject: b64url(attestationObject),
        transports: ['internal'],
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /**
   * navigator.credentials.get(): an assertion by `credential` (default: the first one allowed, or
   * the first held). `tamper` flips a bit of the signature; `counter` replays a stale counter.
   */
  assert(
    options: RequestOptions,
    over: {
      credential?: SoftCredential;
      tamper?: boolean;
      counter?: number;
      origin?: string;
      userHandle?: string;
    } = {},
  ) {
    const allowed = options.allowCredentials?.map((c) => c.id) ?? [];
    const credential =
      over.credential ?? this.credentials.find((c) => !allowed.length || allowed.includes(c.id)) ?? this.credentials[0];
    if (!credential) throw new Error('the soft authenticator holds no credential');
    if (this.counting && over.counter === undefined) credential.counter += 1;
    const authData = Buffer.concat([
      sha256(options.rpId ?? credential.rpId),
      Buffer.from([0x05]), // user present, user verified
      counterBytes(over.counter ?? credential.counter),
    ]);
    const clientDataJSON = JSON.stringify({
      type: 'webauthn.get',
      challenge: options.challenge,
      origin: over.origin ?? this.origin,
      crossOrigin: false,
    });
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), credential.privateKey);
    if (over.tamper) signature[signature.length - 1] ^= 0x01;
    return {
      id: credential.id,
      rawId: credential.id,
      type: 'public-key',
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        userHandle: over.userHandle ?? credential.userHandle,
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }
}

function counterBytes(counter: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(counter);
  return bytes;
}
