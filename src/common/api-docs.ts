import { applyDecorators, INestApplication, RequestMethod, SetMetadata, Type } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import { ApiExtraModels, ApiOkResponse, ApiOperation, getSchemaPath, OpenAPIObject } from '@nestjs/swagger';

import { ApiEnvelope, ValidationFailedDto } from './api-envelope';
import {
  ACCEPTS_STREAM_TICKET,
  ALLOWS_TEMP_TOKEN,
  apiKeyReaches,
  changesWithCodes,
  IS_PUBLIC,
  OR_PERMISSIONS,
  PERMISSIONS,
  RATE_LIMITED_ROUTE,
  REQUIRES_FRESH_PROOF,
} from './auth-context';
import { ErrorCode, HTTP_STATUS } from './error-code';

/**
 * What /docs says about each operation — summary, who may call it, the error codes it can
 * answer, the shape of `data` — comes from one decorator per route (@ApiDoc) plus what the code
 * already declares (@Public, @RequirePermissions, @AllowsTempToken, @RateLimit, TEMP_URIS). The
 * access part is derived when the document is built (describeOperations), so it cannot drift from
 * what the session guard enforces. test/docs/api-docs.e2e-spec.ts fails for a route without them.
 */

export const API_DOC = 'api:doc';

export interface ApiDocOptions {
  /**
   * `data` of the OK answer: a DTO class (see `shape`), or null when the operation answers `data: null`.
   * Leave it out only with `produces` (an answer that is not the JSON envelope).
   */
  data?: Type<unknown> | null;
  shape?: 'object' | 'array' | 'page';
  /** Codes the operation itself may answer, beyond those its access rules imply (derived, see below). */
  errors?: ErrorCode[];
  /** Extra text for the page (Markdown). */
  description?: string;
  /** The OK answer is not the JSON envelope (an event stream, a CSV file). */
  produces?: { contentType: string; description: string };
  /**
   * The route is neither public nor a session route: it takes `Authorization: Bearer <token>` with
   * a token from the configuration (the variable named here, e.g. METRICS_TOKEN). It is @Public for
   * the session guard only; the document says what it really asks for (x-bearer-token, an HTTP
   * bearer security scheme of that name, x-public false) and the codes that follow: NOT_LOGGED_IN
   * for a wrong token, nothing about sessions.
   */
  bearerToken?: string;
}

interface ApiDocMetadata {
  summary: string;
  errors: ErrorCode[];
  bearerToken?: string;
}

/**
 * One decorator per route: `@ApiDoc('Lock an account', { data: null, errors: [ErrorCode.NOT_FOUND] })`.
 * Permission, temporary-token access, security and the codes that follow from them (NOT_LOGGED_IN,
 * FORBIDDEN, VALIDATION_FAILED …) are added from the route's other decorators; list here only what
 * the operation's own rules answer.
 */
export function ApiDoc(summary: string, options: ApiDocOptions = {}) {
  const decorators: (MethodDecorator | ClassDecorator)[] = [
    ApiOperation({ summary, ...(options.description ? { description: options.description } : {}) }),
    SetMetadata(API_DOC, {
      summary,
      errors: options.errors ?? [],
      bearerToken: options.bearerToken,
    } satisfies ApiDocMetadata),
  ];
  if (options.produces) {
    decorators.push(
      ApiOkResponse({
        description: options.produces.description,
        content: { [options.produces.contentType]: { schema: { type: 'string' } } },
      }),
    );
  } else if (options.data === null) {
    decorators.push(ApiNullEnvelope());
  } else if (options.data) {
    decorators.push(ApiEnvelope(options.data, options.shape ?? 'object'));
  }
  return applyDecorators(...decorators);
}

/** The 200 answer of an operation whose `data` is always null. */
function ApiNullEnvelope() {
  return applyDecorators(
    ApiExtraModels(ValidationFailedDto),
    ApiOkResponse({
      description: 'data is null',
      schema: envelopeSchema({ success: true, data: { type: 'object', nullable: true, enum: [null] } }),
    }),
  );
}

function envelopeSchema(options: { success: boolean; codes?: string[]; data: Record<string, unknown> }) {
  return {
    type: 'object',
    required: ['success', 'code', 'message', 'data'],
    properties: {
      success: { type: 'boolean', enum: [options.success] },
      code: { type: 'string', ...(options.codes ? { enum: options.codes } : {}) },
      message: { type: 'string' },
      data: options.data,
    },
  };
}

/** One controller route as Nest registers it, with the handler that carries its metadata. */
export interface RouteInfo {
  method: string;
  path: string;
  controller: Type<unknown>;
  handlerName: string;
  handler: object;
}

// An OpenAPI operation as this file extends it: x- fields and responses its declared type does not allow.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Operation = Record<string, any>;

const METHOD_NAMES: Record<number, string> = {
  [RequestMethod.GET]: 'get',
  [RequestMethod.POST]: 'post',
  [RequestMethod.PUT]: 'put',
  [RequestMethod.DELETE]: 'delete',
  [RequestMethod.PATCH]: 'patch',
  [RequestMethod.OPTIONS]: 'options',
  [RequestMethod.HEAD]: 'head',
  [RequestMethod.ALL]: 'all',
};

const joinPath = (...parts: string[]) =>
  `/${parts
    .map((p) => p.replace(/^\/+|\/+$/g, ''))
    .filter(Boolean)
    .join('/')}`;
const asList = (value: string | string[] | undefined) => (Array.isArray(value) ? value : [value ?? '']);

/** Every controller route of the app (Nest's module graph, as the router registers them). */
export function controllerRoutes(app: INestApplication): RouteInfo[] {
  const routes: RouteInfo[] = [];
  const seen = new Set<Type<unknown>>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as Type<unknown> | undefined;
      if (!controller || seen.has(controller)) continue;
      seen.add(controller);
      const prefixes = asList(Reflect.getMetadata(PATH_METADATA, controller));
      for (const name of Object.getOwnPropertyNames(controller.prototype)) {
        const handler = Object.getOwnPropertyDescriptor(controller.prototype, name)?.value;
        if (name === 'constructor' || typeof handler !== 'function') continue;
        const paths = Reflect.getMetadata(PATH_METADATA, handler);
        if (paths === undefined) continue;
        const method = METHOD_NAMES[Reflect.getMetadata(METHOD_METADATA, handler) ?? RequestMethod.GET];
        for (const prefix of prefixes) {
          for (const path of asList(paths))
            routes.push({ method, path: joinPath(prefix, path), controller, handlerName: name, handler });
        }
      }
    }
  }
  return routes;
}

const meta = <T>(key: string, route: RouteInfo): T | undefined =>
  Reflect.getMetadata(key, route.handler) ?? Reflect.getMetadata(key, route.controller);

const ORDER = Object.values(ErrorCode);

/**
 * Adds to each documented operation what its route declares: `x-permission` (the codes; an empty
 * list = any logged-in caller), `x-public`, `x-temp-token`, `x-api-key`, `x-error-codes`, the security
 * requirement, a description line for each, and one envelope response per HTTP status of its codes.
 */
export function describeOperations(app: INestApplication, document: OpenAPIObject, tempUris: string[]): void {
  const temp = new Set(tempUris);
  for (const route of controllerRoutes(app)) {
    const operation = (document.paths[route.path] as Record<string, Operation> | undefined)?.[route.method];
    if (!operation) continue;
    const doc = meta<ApiDocMetadata>(API_DOC, route);
    const bearer = doc?.bearerToken;
    const isPublic = meta<boolean>(IS_PUBLIC, route) === true && !bearer;
    const permissions = meta<string[]>(PERMISSIONS, route) ?? [];
    const orCodes = meta<string[]>(OR_PERMISSIONS, route) ?? [];
    const tempAllowed = isPublic || meta<boolean>(ALLOWS_TEMP_TOKEN, route) === true || temp.has(route.path);
    const freshProof =
      meta<boolean>(REQUIRES_FRESH_PROOF, route) === true
        ? 'always'
        : changesWithCodes(permissions)
          ? 'reauthForAdmin'
          : 'never';
    const codes = new Set<ErrorCode>([ErrorCode.INTERNAL, ErrorCode.SERVICE_UNAVAILABLE, ...(doc?.errors ?? [])]);
    // Every POST operation refuses a body that is not an object, whatever it takes.
    if (route.method === 'post') codes.add(ErrorCode.VALIDATION_FAILED);
    if (meta<string>(RATE_LIMITED_ROUTE, route)) codes.add(ErrorCode.RATE_LIMITED);
    if (bearer) {
      codes.add(ErrorCode.NOT_LOGGED_IN);
      describeBearerRoute(
        document,
        operation,
        bearer,
        ORDER.filter((c) => codes.has(c)),
      );
      continue;
    }
    if (!isPublic) {
      [ErrorCode.NOT_LOGGED_IN, ErrorCode.KICKED_OUT, ErrorCode.IP_MISMATCH].forEach((c) => codes.add(c));
      if (!tempAllowed) codes.add(ErrorCode.TEMP_TOKEN_FORBIDDEN);
      if (permissions.length) codes.add(ErrorCode.FORBIDDEN);
      // Always on @RequiresFreshProof routes, and on changes while reauthForAdmin is on.
      if (freshProof !== 'never') codes.add(ErrorCode.REAUTH_REQUIRED);
    }
    const errorCodes = ORDER.filter((c) => codes.has(c));
    const keyAllowed = !isPublic && apiKeyReaches(route.path, permissions, freshProof === 'always');

    operation['x-public'] = isPublic;
    operation['x-permission'] = isPublic ? null : permissions;
    operation['x-temp-token'] = tempAllowed;
    operation['x-api-key'] = keyAllowed;
    operation['x-error-codes'] = errorCodes;
    operation.security = isPublic ? [] : [{ 'Admin-Token': [] }, ...(keyAllowed ? [{ 'Api-Key': [] }] : [])];
    const access = isPublic
      ? 'no token needed (public)'
      : permissions.length
        ? `permission ${codeList(permissions)}${orCodes.length ? `, or ${codeList(orCodes)} for what the description says` : ''} (a role holding \`*\` has every one)`
        : 'any logged-in caller, no permission code';
    const ticket = meta<boolean>(ACCEPTS_STREAM_TICKET, route)
      ? ' Also takes `?ticket=` from POST /sys/message/streamTicket.'
      : '';
    operation.description = [
      operation.description,
      `**Access:** ${access}.${ticket}`,
      `**Temporary token:** ${isPublic ? 'not needed' : tempAllowed ? 'may call it' : 'refused (TEMP_TOKEN_FORBIDDEN)'}.`,
      isPublic
        ? ''
        : `**API key:** ${keyAllowed ? 'may call it, with these codes among its own' : 'refused (FORBIDDEN)'}.`,
      isPublic || freshProof === 'never'
        ? ''
        : `**Fresh proof:** ${freshProof === 'always' ? 'needed' : "needed while the login strategy's reauthForAdmin is on"} (a recent password login or POST /sys/me/reauth; REAUTH_REQUIRED otherwise).`,
      `**Error codes:** ${errorCodes.map((c) => `\`${c}\``).join(', ')}.`,
    ]
      .filter(Boolean)
      .join('\n\n');

    addErrorResponses(operation, errorCodes);
  }
}

/**
 * A route behind a token of its own (`bearerToken` of @ApiDoc): not public, no session, no permission
 * code, so no temporary token either; its security is an HTTP bearer scheme named after the variable.
 */
function describeBearerRoute(document: OpenAPIObject, operation: Operation, bearer: string, errorCodes: ErrorCode[]) {
  document.components ??= {};
  document.components.securitySchemes ??= {};
  document.components.securitySchemes[bearer] = {
    type: 'http',
    scheme: 'bearer',
    description: `the value of ${bearer} in the service's configuration (not a login token)`,
  };
  operation['x-public'] = false;
  operation['x-permission'] = null;
  operation['x-bearer-token'] = bearer;
  operation['x-temp-token'] = false;
  operation['x-error-codes'] = errorCodes;
  operation.security = [{ [bearer]: [] }];
  operation.description = [
    operation.description,
    `**Access:** \`Authorization: Bearer <${bearer}>\`: the token configured in ${bearer}, not a session (no login, no permission code).`,
    '**Temporary token:** not applicable (no session token is taken).',
    `**Error codes:** ${errorCodes.map((c) => `\`${c}\``).join(', ')}.`,
  ]
    .filter(Boolean)
    .join('\n\n');
  addErrorResponses(operation, errorCodes);
}

/** One envelope response per HTTP status of the operation's codes. */
function addErrorResponses(operation: Operation, errorCodes: ErrorCode[]) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodes) byStatus.set(HTTP_STATUS[code], [...(byStatus.get(HTTP_STATUS[code]) ?? []), code]);
  for (const [status, list] of byStatus) {
    const validation = list.includes(ErrorCode.VALIDATION_FAILED);
    operation.responses[String(status)] = {
      description:
        list.join(', ') +
        (validation ? ' (VALIDATION_FAILED carries data.errors naming the refused fields; the others data: null)' : ''),
      content: {
        'application/json': {
          schema: envelopeSchema({
            success: false,
            codes: list,
            // OpenAPI 3.0's `nullable` only counts beside a `type` in the same schema (a `$ref` under allOf has none).
            data: validation
              ? { type: 'object', nullable: true, allOf: [{ $ref: getSchemaPath(ValidationFailedDto) }] }
              : { type: 'object', nullable: true, enum: [null] },
          }),
        },
      },
    };
  }
}

const codeList = (codes: readonly string[]) => codes.map((code) => `\`${code}\``).join(' + ');
