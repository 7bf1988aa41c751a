/**
 * The one request wrapper: every operation is POST with a JSON body and answers the
 * envelope { success, code, message, data } (contract §2). A failed envelope becomes an
 * ApiError carrying the server's code and message verbatim.
 */
export interface Envelope<T> {
  success: boolean;
  code: string;
  message: string;
  data: T | null;
}

/** Contract §7: one refused input field of a VALIDATION_FAILED answer (`data.errors`). */
export interface FieldError {
  field: string;
  message: string;
}

export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
    /** The refused fields a VALIDATION_FAILED answer names; empty for every other failure. */
    readonly fieldErrors: FieldError[] = [],
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** `data.errors` of a failed envelope, keeping only well-formed entries (anything else: none). */
function fieldErrorsIn(code: string, data: unknown): FieldError[] {
  if (code !== 'VALIDATION_FAILED' || !data || typeof data !== 'object') return [];
  const errors = (data as { errors?: unknown }).errors;
  if (!Array.isArray(errors)) return [];
  return errors.filter((e): e is FieldError => !!e && typeof e === 'object'
    && typeof (e as FieldError).field === 'string' && typeof (e as FieldError).message === 'string');
}

export const TOKEN_KEY = 'Admin-Token';
export const LANG_KEY = 'lang';

/** Codes that mean the session is gone: the console returns to the login page with the message. */
export const SESSION_END_CODES = new Set(['NOT_LOGGED_IN', 'KICKED_OUT', 'IP_MISMATCH']);

export const getToken = (): string | null => localStorage.getItem(TOKEN_KEY);
export const setToken = (token: string): void => localStorage.setItem(TOKEN_KEY, token);
export const removeToken = (): void => localStorage.removeItem(TOKEN_KEY);
export const acceptLanguage = (): string => (localStorage.getItem(LANG_KEY) === 'en' ? 'en' : 'zh-CN');

type Handler = (error: ApiError) => void;
let sessionEndHandler: Handler = () => {};
let tempTokenHandler: Handler = () => {};

/** Registered once by main.ts, so that this module needs neither the router nor the stores. */
export function onSessionEnd(handler: Handler): void {
  sessionEndHandler = handler;
}
export function onTempTokenForbidden(handler: Handler): void {
  tempTokenHandler = handler;
}

export async function post<T = null>(url: string, body: object = {}): Promise<T> {
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'Accept-Language': acceptLanguage(),
  };
  const token = getToken();
  if (token) headers[TOKEN_KEY] = token;

  let response: Response;
  try {
    response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  } catch {
    throw new ApiError('NETWORK', acceptLanguage() === 'en' ? 'The service cannot be reached' : '无法连接服务', 0);
  }
  let envelope: Envelope<T>;
  try {
    envelope = (await response.json()) as Envelope<T>;
  } catch {
    throw new ApiError('INTERNAL', `HTTP ${response.status} ${response.statusText}`, response.status);
  }
  if (envelope.success) return envelope.data as T;

  const error = new ApiError(envelope.code, envelope.message, response.status, fieldErrorsIn(envelope.code, envelope.data));
  // Only a request that carried a token can end a session; a failed login is just a failed login.
  if (token && SESSION_END_CODES.has(error.code)) {
    sessionEnded(token, error);
  } else if (token && error.code === 'TEMP_TOKEN_FORBIDDEN') {
    tempTokenHandler(error);
  }
  throw error;
}

let endedToken: string | null = null;

/** The session of `token` has ended, as the service said (an API answer, or the message stream's `end` event). */
export function sessionEnded(token: string, error: ApiError): void {
  if (getToken() === token) {
    endedToken = token;
    sessionEndHandler(error);
  } else if (endedToken === token && error.code !== 'NOT_LOGGED_IN') {
    // Parallel requests of a kicked-out token: one answers KICKED_OUT (once), the others
    // NOT_LOGGED_IN, in either order. The more telling reason wins.
    sessionEndHandler(error);
  }
}

export interface Page<T> {
  total: number;
  rows: T[];
}

export interface PageQuery {
  pageNum: number;
  pageSize: number;
}

/**
 * What a form marks after a failed call: each field the service refused (contract §7 `data.errors`)
 * that is one of `fields`, with the service's message for it. `rest` is true when the failure is not
 * (only) about those fields, so the form shows the message as a whole too.
 */
export function fieldErrorsFor(error: unknown, fields: readonly string[]): { marks: Record<string, string>; rest: boolean } {
  const marks: Record<string, string> = {};
  if (!(error instanceof ApiError) || !error.fieldErrors.length) return { marks, rest: true };
  let rest = false;
  for (const { field, message } of error.fieldErrors) {
    if (fields.includes(field)) marks[field] ??= message;
    else rest = true;
  }
  return { marks, rest };
}
