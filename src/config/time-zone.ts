/** DISPLAY_TIMEZONE's values; the formatting is common/display-time.ts. */

/** The zone of the server's process (TZ, else the system's), the default of DISPLAY_TIMEZONE. */
export function serverTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/**
 * An IANA zone name the runtime knows ("Asia/Shanghai", "UTC", "Etc/GMT-8"). Offsets such as
 * "+08:00" are refused: they know no daylight saving time, and the name is what people configure.
 */
export function isTimeZoneName(value: unknown): value is string {
  if (typeof value !== 'string' || !/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(value)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}
