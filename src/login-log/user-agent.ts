import Bowser from 'bowser';

/** Browser and OS of spec 2.6 from the User-Agent, e.g. "Chrome 120.0" / "Windows 10". */
export function parseUserAgent(ua: string): { browser: string | null; os: string | null } {
  if (!ua) return { browser: null, os: null };
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
