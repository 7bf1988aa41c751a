import { base64url } from './webauthn';

/** Base64url text of at most `max` characters (an authenticator's fields are a few KiB at most). */
const b64 = (value: unknown, max = 16_384): boolean =>
  typeof value === 'string' && value.length > 0 && value.length <= max && base64url.isValid(value);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The fields every credential answer has (PublicKeyCredential as JSON). */
function credentialShape(value: unknown): value is { id: string; response: Record<string, unknown> } {
  return isObject(value) && b64(value.id, 1400) && value.type === 'public-key' && isObject(value.response);
}

/**
 * An AuthenticationResponseJSON as a browser sends it: malformed input is refused as such
 * (VALIDATION_FAILED, nothing counted); a well-formed answer that does not verify is a wrong proof.
 */
export function isAssertionShape(value: unknown): boolean {
  if (!credentialShape(value)) return false;
  const r = value.response;
  return (
    b64(r.clientDataJSON) &&
    b64(r.authenticatorData) &&
    // ML-DSA-87, the largest signature an authenticator may make, is 4 627 bytes (6 170 characters).
    b64(r.signature, 8192) &&
    (r.userHandle === undefined || b64(r.userHandle, 128))
  );
}

/** A RegistrationResponseJSON as a browser sends it. */
export function isAttestationShape(value: unknown): boolean {
  return credentialShape(value) && b64(value.response.clientDataJSON) && b64(value.response.attestationObject, 65_536);
}
