const pad = (n: number) => String(n).padStart(2, '0');

/**
 * Issue 17: the console shows times in the zone the service writes its notifications in
 * (DISPLAY_TIMEZONE, from /sys/me/info), so that a notice and the log row of one event read the
 * same. Until it is known (the login page), the browser's zone.
 */
let displayTimeZone: string | undefined;
let formatter: Intl.DateTimeFormat | null = null;

export function setDisplayTimeZone(zone: string | undefined | null): void {
  let usable: string | undefined;
  try {
    if (zone) new Intl.DateTimeFormat('en-US', { timeZone: zone });
    usable = zone || undefined;
  } catch {
    usable = undefined; // a zone this browser does not know: its own
  }
  if (usable === displayTimeZone && formatter) return;
  displayTimeZone = usable;
  formatter = new Intl.DateTimeFormat('en-US', {
    timeZone: displayTimeZone, year: 'numeric', month: '2-digit', day: '2-digit',
    hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23',
  });
}

export function getDisplayTimeZone(): string {
  return displayTimeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
}

interface WallTime { year: number; month: number; day: number; hour: number; minute: number; second: number }

/** The wall time of an instant in the display zone. */
function wallTime(d: Date): WallTime {
  if (!formatter) setDisplayTimeZone(displayTimeZone);
  const parts = Object.fromEntries(formatter!.formatToParts(d).map((p) => [p.type, Number(p.value)]));
  return { year: parts.year, month: parts.month, day: parts.day, hour: parts.hour, minute: parts.minute, second: parts.second };
}

/** 'YYYY-MM-DD HH:mm:ss' in the display zone; '' for nothing. */
export function formatTime(value: string | number | Date | null | undefined): string {
  if (value === null || value === undefined || value === '') return '';
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return String(value);
  const w = wallTime(d);
  return `${w.year}-${pad(w.month)}-${pad(w.day)} ${pad(w.hour)}:${pad(w.minute)}:${pad(w.second)}`;
}

/** The display zone's offset from UTC at `d`, in minutes (Shanghai: 480). */
function offsetMinutes(d: Date): number {
  const w = wallTime(d);
  return Math.round((Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) - Math.floor(d.getTime() / 1000) * 1000) / 60_000);
}

/** The display zone's offset as '+08:00', for labels. */
export function formatOffset(d: Date = new Date()): string {
  const m = offsetMinutes(d);
  const abs = Math.abs(m);
  return `${m >= 0 ? '+' : '-'}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/** The instant at which day `daysAgo` before today begins in the display zone (0: today's midnight). */
export function startOfDay(daysAgo = 0, now: Date = new Date()): Date {
  const w = wallTime(now);
  const guess = new Date(Date.UTC(w.year, w.month - 1, w.day - daysAgo));
  // Midnight there is UTC midnight minus the zone's offset at that moment (read twice for DST edges).
  const first = new Date(guess.getTime() - offsetMinutes(guess) * 60_000);
  return new Date(guess.getTime() - offsetMinutes(first) * 60_000);
}

/** Date-picker shortcuts of the log pages: today, the last 7 and the last 30 days, up to now. */
export function rangeShortcuts(t: (key: string) => string) {
  return [
    { text: t('logs.today'), value: () => [startOfDay(0), new Date()] },
    { text: t('logs.last7Days'), value: () => [startOfDay(6), new Date()] },
    { text: t('logs.last30Days'), value: () => [startOfDay(29), new Date()] },
  ];
}

/** Seconds as m:ss. */
export function formatCountdown(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  return `${Math.floor(s / 60)}:${pad(s % 60)}`;
}
