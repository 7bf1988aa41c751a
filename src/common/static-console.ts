import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

import fastifyStatic from '@fastify/static';
import { Logger } from '@nestjs/common';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * The console's pages allow scripts from the service's own origin only, so that text
 * that reaches the page (a user name, a log row) can never run as script, nor load script from elsewhere.
 * Styles come from the service too: Vue and Element Plus set inline styles through the CSSOM, which
 * style-src does not govern, and the browser suite reports no violation on any page. (Element Plus's
 * cascader writes style attributes as markup; a view that adds one needs 'unsafe-inline' for styles.)
 * Images may be data: URLs (the captcha PNG, the QR code).
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The extensions of the compressed copies the console's build writes, as @fastify/static looks for them. */
const PRECOMPRESSED = ['.br', '.gz'];

/** First path segments that belong to the service, never to the console's client-side routes. */
const SERVICE_SEGMENTS = new Set(['sys', 'auth', 'health', 'metrics', 'docs', 'docs-json', 'docs-yaml']);

/**
 * The admin console (web/, built to web/dist) at `/`, when it has been built. Files are served as
 * they were at start (a rebuild needs a restart); any other GET that is not a service path and does
 * not name a file answers index.html, so that the console's own routes (/system/users, ...) survive
 * a reload. Service paths, missing files and every other method keep the envelope's NOT_FOUND.
 */
export async function registerStaticConsole(app: NestFastifyApplication, root = defaultConsoleDir()): Promise<void> {
  const indexFile = join(root, 'index.html');
  if (!existsSync(indexFile)) return;
  const indexHtml = readFileSync(indexFile);
  const fastify = app.getHttpAdapter().getInstance() as unknown as FastifyInstance;

  // Encapsulated, like @nestjs/swagger's /docs assets: no reply decorators leak to the rest of the app.
  await fastify.register(async (instance) => {
    await instance.register(fastifyStatic, {
      root,
      prefix: '/',
      // One route per file found now, rather than a catch-all: the SPA fallback below is the catch-all.
      wildcard: false,
      index: false,
      decorateReply: false,
      // The build writes name.br and name.gz beside each text file (web/vite.config.ts); a browser that
      // accepts one gets it with Content-Encoding and Vary: Accept-Encoding. They are not routes of their own.
      preCompressed: true,
      globIgnore: PRECOMPRESSED.map((ext) => `**/*${ext}`),
      setHeaders: (reply, sent) => {
        // `sent` is the compressed copy when one is sent: the policies follow the file it stands for.
        const path = PRECOMPRESSED.reduce((p, ext) => (p.endsWith(ext) ? p.slice(0, -ext.length) : p), sent);
        // Vite puts a content hash in every name under assets/: those never change.
        reply.header(
          'cache-control',
          /[\\/]assets[\\/]/.test(path) ? 'public, max-age=31536000, immutable' : 'no-cache',
        );
        if (/\.html?$/i.test(path)) reply.header('content-security-policy', CONSOLE_CSP);
      },
    });

    const sendIndex = (request: FastifyRequest, reply: FastifyReply) => {
      if (!isConsoleRoute(request.url)) return reply.callNotFound();
      return reply
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-cache')
        .header('content-security-policy', CONSOLE_CSP)
        .send(indexHtml);
    };
    instance.get('/', sendIndex);
    instance.get('/*', sendIndex);
  });
  new Logger('Console').log(`Admin console served at / from ${root}`);
}

/** A client-side route of the console: not a service path, and no file name (`.js`, `.png`) at its end. */
export function isConsoleRoute(url: string): boolean {
  const path = url.split(/[?#]/, 1)[0];
  const segments = path.split('/').filter(Boolean);
  if (segments.length && SERVICE_SEGMENTS.has(segments[0].toLowerCase())) return false;
  const last = segments[segments.length - 1] ?? '';
  return !last.includes('.');
}

/** web/dist of this project, whether running from src/ (ts, tests) or from dist/src/ (the build). */
function defaultConsoleDir(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return join(dir, 'web', 'dist');
}
