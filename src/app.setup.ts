import formBody from '@fastify/formbody';
import type { INestApplication } from '@nestjs/common';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { FastifyInstance } from 'fastify';

import { describeOperations } from './common/api-docs';
import { FieldErrorDto, ValidationFailedDto } from './common/api-envelope';
import { parseFormBody } from './common/form-body';
import { docsPolicy, securityHeaders } from './common/security-headers';
import { registerStaticConsole } from './common/static-console';
import { BodyValidationPipe } from './common/validation.pipe';
import { AppConfig } from './config/app-config';
import { IMPORT_MAX_BYTES } from './user-account/dto/user.dto';

/**
 * Everything the HTTP layer needs besides the modules: body parsers (JSON with
 * `{}` for an empty body, form-encoded), the validation pipe, security headers,
 * Fastify-level errors in the envelope, and OpenAPI at /docs. Shared by main.ts
 * and the tests, so that tests drive the app exactly as it runs.
 */
export async function setupApp(app: NestFastifyApplication): Promise<void> {
  const fastify = app.getHttpAdapter().getInstance() as unknown as FastifyInstance;

  // The one operation that takes a file: its own body limit (the file's, in base64, and a margin).
  fastify.addHook('onRoute', (route) => {
    if (route.url === '/sys/user/import') route.bodyLimit = Math.ceil(IMPORT_MAX_BYTES / 3) * 4 + 64 * 1024;
  });
  fastify.removeContentTypeParser('application/json');
  const jsonParser = fastify.getDefaultJsonParser('error', 'error');
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (typeof body === 'string' && body.trim() === '') return done(null, {});
    jsonParser(req, body as string, done);
  });
  await app.register(formBody, { parser: parseFormBody });
  // Helmet's headers on every answer, set before the handler runs so that a route may override one.
  // With them, Cache-Control no-store: no API answer (envelopes, errors, 404s) is kept by a browser
  // or a shared cache; it may carry a token, a generated password or personal data. What sets its
  // own policy overrides it: the console's files (static-console.ts). One hook and one ready object
  // per request rather than a second (onSend) hook.
  const config = app.get(AppConfig);
  const hsts = { maxAge: config.HSTS_MAX_AGE, includeSubDomains: config.HSTS_INCLUDE_SUBDOMAINS };
  const headers = Object.freeze({ ...securityHeaders(hsts), 'cache-control': 'no-store' });
  fastify.addHook('onRequest', (_request, reply, done) => {
    reply.headers(headers);
    done();
  });
  // CORS only for the origins an operator lists: unset, browsers on other origins get no CORS headers.
  const { CORS_ORIGINS } = config;
  if (CORS_ORIGINS.length) {
    app.enableCors({
      origin: CORS_ORIGINS.includes('*') ? '*' : CORS_ORIGINS,
      methods: ['GET', 'POST'],
      allowedHeaders: ['Content-Type', 'Admin-Token', 'Authorization', 'X-Api-Key', 'Accept-Language'],
      maxAge: 600,
    });
  }

  // Errors raised before a handler runs (bad JSON, body too large, unknown media type, unknown
  // path) reach Nest's error and not-found handlers, which hand them to AllExceptionsFilter.
  app.useGlobalPipes(new BodyValidationPipe());
  // The signals that mean "stop": without a list Nest also closes the app on SIGUSR2 (what
  // `node --heapsnapshot-signal=SIGUSR2` uses to take a heap snapshot), SIGHUP and the rest.
  app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
  // The admin console (web/dist) at /, when built; the API keeps its paths.
  await registerStaticConsole(app);

  docsPolicy(fastify, '/docs');
  SwaggerModule.setup('docs', app, openApiDocument(app));
}

/**
 * The OpenAPI document of the app's operations, as /docs serves it. `npm run api:types` generates
 * the console's API types from it (tools/api-types.ts).
 */
export function openApiDocument(app: INestApplication): OpenAPIObject {
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Login policy service')
      .setDescription(API_DESCRIPTION)
      // Relative: the operations are on the origin that serves this document, whatever its host name.
      .addServer('/', 'this service')
      .addApiKey({ type: 'apiKey', in: 'header', name: 'Admin-Token' }, 'Admin-Token')
      // An API key of an internal service (also as `Authorization: Bearer lps_…`), on the operations marked x-api-key.
      .addApiKey({ type: 'apiKey', in: 'header', name: 'X-Api-Key' }, 'Api-Key')
      .build(),
    { extraModels: [FieldErrorDto, ValidationFailedDto] },
  );
  describeOperations(app, document, app.get(AppConfig).TEMP_URIS);
  unwrapLoneAllOf(document);
  return document;
}

/**
 * @nestjs/swagger writes a property typed by a named enum as `{ allOf: [{ $ref }] }` even when
 * nothing stands beside the reference; a composition of one schema says no more than the schema,
 * so it becomes the reference itself. A wrapper that carries anything else (a description,
 * `nullable`) stays, because OpenAPI 3.0 ignores a `$ref`'s siblings.
 */
export function unwrapLoneAllOf(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(unwrapLoneAllOf);
  if (node === null || typeof node !== 'object') return node;
  const object = node as Record<string, unknown>;
  for (const key of Object.keys(object)) object[key] = unwrapLoneAllOf(object[key]);
  const keys = Object.keys(object);
  if (keys.length === 1 && Array.isArray(object.allOf) && object.allOf.length === 1) return object.allOf[0];
  return object;
}

/**
 * The page's introduction, with the recipe for "Authorize". The page offers no way around
 * the captcha or the RSA transport: the script does what every client does, and it logs in only
 * where the operator turned the captcha off (CAPTCHA_ENABLED=false, for development).
 */
const API_DESCRIPTION = `Login policy, account policy, sessions and login log. Every operation is POST with a JSON body \
(\`{}\` when there is no input); every answer is the envelope \`{ success, code, message, data }\` \
(\`Accept-Language: en\` for English messages).

Each operation lists **Access** (\`x-permission\`: the permission codes it needs; \`x-public\`: no token), \
whether a **temporary token** may call it (\`x-temp-token\`) and the **error codes** it can answer \
(\`x-error-codes\`, with one documented envelope response per HTTP status).

### Authorize in this page
Login needs the password RSA-OAEP-256 encrypted under \`POST /sys/publicKey\` and, unless turned off, a captcha. \
On a development instance started with \`CAPTCHA_ENABLED=false\`, get a token with the bundled script and paste it \
into **Authorize → Admin-Token**:

\`\`\`
node tools/dev-token.mjs http://localhost:3000 admin 'the password'
\`\`\`

It fetches the public key, encrypts the password with Node's crypto (as the console does with WebCrypto) and \
prints \`data.accessToken\` of \`POST /sys/login\`. With the captcha on (production), log in through the \
console and copy the token from the browser's local storage instead; this page offers no way around either.`;
