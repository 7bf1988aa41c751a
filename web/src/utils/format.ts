const pad = (n: number) => String(n).padStart(2, '0');

/**
 * The console shows times in the zone the service writes its notifications in
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
    timeZone: displayTimeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  });
}

export function getDisplayTimeZone(): string {
  return displayTimeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
}

interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** The wall time of an instant in the display zone. */
function wallTime(d: Date): WallTime {
  if (!formatter) setDisplayTimeZone(displayTimeZone);
  const parts = Object.fromEntries(formatter!.formatToParts(d).map((p) => [p.type, Number(p.value)]));
  return {
    year: parts.year,
    month: parts.month,
    day: parts.day,
    hour: parts.hour,
    minute: parts.minute,
    second: parts.second,
  };
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
  return Math.round(
    (Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) - Math.floor(d.getTime() / 1000) * 1000) / 60_000,
  );
}

/** The display zone's offset as '+08:00', for labels. */
export function formatOffset(d: Date = new Date()): string {
  const m = offsetMinutes(d);
  const abs = Math.abs(m);
  return `${m >= 0 ? '+' : '-'}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/** The instant whose wall time in the display zone is the given one (read twice for DST edges). */
function instantOfWall(year: number, month: number, day: number, hour = 0, minute = 0, second = 0): Date {
  const guess = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  const first = new Date(guess.getTime() - offsetMinutes(guess) * 60_000);
  return new Date(guess.getTime() - offsetMinutes(first) * 60_000);
}

/** The instant at which day `daysAgo` before today begins in the display zone (0: today's midnight). */
export function startOfDay(daysAgo = 0, now: Date = new Date()): Date {
  const w = wallTime(now);
  return instantOfWall(w.year, w.month, w.day - daysAgo);
}

/*
 * Element Plus's date picker shows and takes a Date in the browser's zone. So that it shows and
 * takes wall times of the display zone instead, its model holds "picker dates": Dates whose
 * browser-local wall time is the display zone's wall time of the instant meant.
 */

/** The picker date showing `instant`'s wall time in the display zone. */
export function toPickerDate(instant: Date): Date {
  const w = wallTime(instant);
  return new Date(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
}

/** The instant a picker date means: its wall time read in the display zone. */
export function fromPickerDate(picked: Date): Date {
  return instantOfWall(
    picked.getFullYear(),
    picked.getMonth() + 1,
    picked.getDate(),
    picked.getHours(),
    picked.getMinutes(),
    picked.getSeconds(),
  );
}

/** A picker range as the lists' beginTime / endTime (ISO instants). */
export function pickerRange(range: [Date, Date] | null | undefined): { beginTime?: string; endTime?: string } {
  return {
    beginTime: range?.[0] ? fromPickerDate(range[0]).toISOString() : undefined,
    endTime: range?.[1] ? fromPickerDate(range[1]).toISOString() : undefined,
  };
}

/** Date-picker shortcuts of the log pages: today, the last 7 and the last 30 days, up to now (as picker dates). */
export function rangeShortcuts(t: (key: string) => string) {
  const upToNow = (daysAgo: number) => () => [toPickerDate(startOfDay(daysAgo)), toPickerDate(new Date())];
  return [
    { text: t('logs.today'), value: upToNow(0) },
    { text: t('logs.last7Days'), value: upToNow(6) },
    { text: t('logs.last30Days'), value: upToNow(29) },
  ];
}

/** Seconds as m:ss. */
export function formatCountdown(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  return `${Math.floor(s / 60)}:${pad(s % 60)}`;
}

/** A download's file name stamped with the browser's local time: `<base>-YYYYMMDD-HHmmss.csv`. */
export function stampedFileName(base: string, extension: string, at = new Date()): string {
  const stamp = `${at.getFullYear()}${pad(at.getMonth() + 1)}${pad(at.getDate())}-${pad(at.getHours())}${pad(at.getMinutes())}${pad(at.getSeconds())}`;
  return `${base}-${stamp}.${extension}`;
}
