import type { IncomingMessage, ServerResponse } from 'node:http';

import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import helmet from 'helmet';

import { CONSOLE_CSP } from './static-console';

/** Strict-Transport-Security as configured: off (not sent) unless HSTS_MAX_AGE is above 0. */
export interface HstsOptions {
  maxAge: number;
  includeSubDomains: boolean;
}

/**
 * The response headers helmet's defaults write (nosniff, frame options, the cross-origin
 * policies, …; the content security policy is left out, the console sets its own), computed once
 * by running helmet's middleware against a recording response. They never depend on the request,
 * so each request copies a ready object instead of running helmet's middleware chain.
 * Strict-Transport-Security only when `hsts` has a max-age: sent over a plain-HTTP deployment, it
 * would lock browsers out of the host for as long as it says.
 */
export function securityHeaders(hsts: HstsOptions): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader: (name: string, value: string | number | string[]) => {
      headers[name.toLowerCase()] = String(value);
    },
    removeHeader: (name: string) => {
      delete headers[name.toLowerCase()];
    },
    getHeader: (name: string) => headers[name.toLowerCase()],
  };
  let done = false;
  helmet({
    contentSecurityPolicy: false,
    strictTransportSecurity:
      hsts.maxAge > 0 ? { maxAge: hsts.maxAge, includeSubDomains: hsts.includeSubDomains } : false,
  })({} as IncomingMessage, recorder as unknown as ServerResponse, (err?: unknown) => {
    if (err) throw err;
    done = true;
  });
  if (!done) throw new Error('helmet did not finish synchronously');
  return Object.freeze(headers);
}

/**
 * /docs (Swagger UI) is served on the console's origin, where a script could read the console's
 * token, so it gets the console's policy (static-console.ts): scripts only from the
 * service. @nestjs/swagger serves the page's init script as a file (swagger-ui-init.js), so the page
 * runs no inline script and 'self' covers every one. Styles are another matter: the page carries
 * inline <style> blocks and a style attribute, and Swagger UI's bundle adds a <style> element as it
 * starts, so styles may be inline here; they cannot run script, and the page shows only the
 * service's own OpenAPI document. test/console/page-policy-browser.e2e-spec.ts renders it in
 * Chromium and expects no violation.
 */
export const DOCS_CSP = CONSOLE_CSP.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'");

/**
 * Gives every route under `prefix` (the page, its init script and its assets) DOCS_CSP, through a
 * hook of those routes only: the other answers keep their one onRequest hook (app.setup.ts).
 * Register before the routes are (before SwaggerModule.setup).
 */
export function docsPolicy(fastify: FastifyInstance, prefix: string): void {
  const setPolicy: onRequestHookHandler = (_request, reply, done) => {
    reply.header('content-security-policy', DOCS_CSP);
    done();
  };
  fastify.addHook('onRoute', (route) => {
    if (route.url !== prefix && !route.url.startsWith(`${prefix}/`)) return;
    const own = route.onRequest ? [route.onRequest].flat() : [];
    route.onRequest = [...own, setPolicy];
  });
}
