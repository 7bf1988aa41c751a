import { formatDisplayTime, isTimeZoneName, serverTimeZone } from './display-time';

describe('display time (DISPLAY_TIMEZONE)', () => {
  const at = new Date('2025-01-02T03:04:05.678Z');

  it('writes the wall time of the zone with its offset', () => {
    expect(formatDisplayTime(at, 'Asia/Shanghai')).toBe('2025-01-02 11:04:05 (UTC+08:00)');
    expect(formatDisplayTime(at.toISOString(), 'UTC')).toBe('2025-01-02 03:04:05 (UTC+00:00)');
    expect(formatDisplayTime(at, 'America/New_York')).toBe('2025-01-01 22:04:05 (UTC-05:00)');
    expect(formatDisplayTime(new Date('2025-07-01T12:00:00Z'), 'America/New_York')).toBe(
      '2025-07-01 08:00:00 (UTC-04:00)',
    );
    expect(formatDisplayTime(at, 'Asia/Kolkata')).toBe('2025-01-02 08:34:05 (UTC+05:30)');
    // Midnight is 00, not 24.
    expect(formatDisplayTime(new Date('2025-01-01T16:00:00Z'), 'Asia/Shanghai')).toBe(
      '2025-01-02 00:00:00 (UTC+08:00)',
    );
  });

  it('knows IANA names and refuses anything else', () => {
    for (const name of ['Asia/Shanghai', 'UTC', 'Etc/GMT-8', 'America/Argentina/Buenos_Aires', serverTimeZone()]) {
      expect(isTimeZoneName(name)).toBe(true);
    }
    for (const bad of ['Mars/Olympus', '+08:00', 'Asia/Shanghai ', '', 'Asia//Shanghai', 8, null]) {
      expect(isTimeZoneName(bad)).toBe(false);
    }
  });
});
