/**
 * A value made at its first use and kept: how the service loads a package that only some instances
 * ever need (exceljs, the SM2 library, @simplewebauthn/server, the captcha's Skia), so that the others
 * never pay its memory.
 */
export function atFirstUse<T>(load: () => T): () => T {
  let loaded: { value: T } | undefined;
  return () => (loaded ??= { value: load() }).value;
}
