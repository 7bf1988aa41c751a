import Bowser from 'bowser';

export interface UserAgentParts {
  browser: string | null;
  os: string | null;
}

const NONE: UserAgentParts = Object.freeze({ browser: null, os: null });

/**
 * How many User-Agents' parses are kept, and up to what length: a company's users log in with a
 * handful of browsers, and Bowser's parse shows in a login's main-thread profile, twice a login
 * (the session and the log row). Longer ones (no browser sends them) are
 * parsed each time, so that the kept ones stay a few hundred KiB at most.
 */
const KEPT_MAX = 500;
const KEPT_LENGTH_MAX = 512;
const kept = new Map<string, UserAgentParts>();

/** The log's browser and OS from the User-Agent, e.g. "Chrome 120.0" / "Windows 10". */
export function parseUserAgent(ua: string): UserAgentParts {
  if (!ua) return NONE;
  const known = kept.get(ua);
  if (known) return known;
  const parts = Object.freeze(parse(ua));
  if (ua.length <= KEPT_LENGTH_MAX) {
    if (kept.size >= KEPT_MAX) kept.delete(kept.keys().next().value as string);
    kept.set(ua, parts);
  }
  return parts;
}

function parse(ua: string): UserAgentParts {
  try {
    const parsed = Bowser.parse(ua);
    const join = (name?: string, version?: string) =>
      name ? `${name}${version ? ` ${version.split('.').slice(0, 2).join('.')}` : ''}`.slice(0, 64) : null;
    return {
      browser: join(parsed.browser.name, parsed.browser.version) ?? ua.slice(0, 64),
      os: join(parsed.os.name, parsed.os.versionName ?? parsed.os.version),
    };
  } catch {
    return { browser: ua.slice(0, 64), os: null };
  }
}
