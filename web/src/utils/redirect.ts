/**
 * After login the console follows only a path of its own origin. A value that starts
 * with two slashes (`//evil.example`), a backslash (`/\evil.example`, which browsers read as `//`), a
 * scheme (`https:`, `javascript:`), or holds a control character or white space (the URL parser drops
 * tabs and line breaks, so `/<tab>/evil.example` becomes `//evil.example`) is not one: `/` instead.
 */
export function sameOriginPath(value: unknown, origin = window.location.origin): string {
  if (typeof value !== 'string' || !/^\/(?![/\\])/.test(value) || /[\\\p{Cc}\p{White_Space}]/u.test(value)) return '/';
  try {
    const url = new URL(value, origin);
    return url.origin === origin ? `${url.pathname}${url.search}${url.hash}` : '/';
  } catch {
    return '/';
  }
}
