import { serverTimeZone } from '../config/time-zone';

export { isTimeZoneName, serverTimeZone } from '../config/time-zone';

/**
 * Times in texts the service writes for people (notifications, reminders): in the zone
 * of DISPLAY_TIMEZONE, with its UTC offset, so that a reader elsewhere cannot misread them
 * ("2025-01-02 11:04:05 (UTC+08:00)"). Stored and API times stay UTC.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
      timeZoneName: 'longOffset',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** `YYYY-MM-DD HH:mm:ss (UTC±hh:mm)` of the instant in `timeZone`. */
export function formatDisplayTime(value: string | Date, timeZone: string = serverTimeZone()): string {
  const d = typeof value === 'string' ? new Date(value) : value;
  const parts = Object.fromEntries(
    formatterFor(timeZone)
      .formatToParts(d)
      .map((p) => [p.type, p.value]),
  );
  // longOffset is "GMT+08:00", or "GMT" for a zero offset.
  const offset = parts.timeZoneName === 'GMT' ? '+00:00' : parts.timeZoneName.replace('GMT', '');
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second} (UTC${offset})`;
}

/** `yyyy-MM-dd HH:mm:ss` of the instant in `timeZone`, without the offset: an export names its zone in the header. */
export function formatLocalTime(value: string | Date, timeZone: string): string {
  return formatDisplayTime(value, timeZone).slice(0, 19);
}
