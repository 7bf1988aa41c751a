/**
 * A start that cannot succeed for a reason outside the code (a port in use, a database or Redis
 * that does not answer): the service ends with one line naming the variable to check, and no
 * stack trace, which would only say where the code noticed it.
 */
export class StartFailure extends Error {
  override name = 'StartFailure';

  /** origin: the driver's own error, for a caller that reports it its own way (admin:recover). */
  constructor(
    readonly variable: string,
    detail: string,
    readonly origin?: unknown,
  ) {
    super(`${variable}: ${detail}`);
  }
}

/** host:port of a URL for a message: never its user or password. */
export function addressOf(url: string, defaultPort: number): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || defaultPort}`;
  } catch {
    return '(unparsable URL)';
  }
}

/** The short name of an error for a message: its code (ECONNREFUSED, ER_ACCESS_DENIED_ERROR) or its class. */
export function reasonOf(err: unknown): string {
  const e = err as { code?: unknown; name?: string; message?: string; errors?: unknown[] } | undefined;
  // An AggregateError (every address of a host refused) carries the codes on its parts.
  if (!e?.code && Array.isArray(e?.errors) && e.errors.length) return reasonOf(e.errors[0]);
  if (typeof e?.code === 'string' && e.code) return e.code;
  return e?.message ? `${e.name ?? 'Error'}: ${e.message}` : String(err);
}

/** Fastify's listen errors that a person fixes with PORT or HOST. */
export function listenFailure(err: unknown, host: string, port: number): StartFailure | null {
  switch ((err as { code?: string })?.code) {
    case 'EADDRINUSE':
      return new StartFailure(
        'PORT',
        `${host}:${port} is already in use: stop the process that holds it, or set PORT to a free port`,
      );
    case 'EACCES':
      return new StartFailure(
        'PORT',
        `no permission to listen on ${host}:${port}: ports below 1024 need privileges, set PORT to 1024 or above`,
      );
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new StartFailure(
        'HOST',
        `cannot listen on ${host}:${port} (${(err as { code: string }).code}): set HOST to an address of this machine, or 0.0.0.0`,
      );
    default:
      return null;
  }
}
