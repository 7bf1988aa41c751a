import { ValidateBy } from 'class-validator';

// A calendar date, optionally with a time. IsDateString alone also lets through week and ordinal dates
// ('2024-W01'), which Date cannot read, and days that do not exist ('2023-02-29'); either would reach the
// query as a wrong or invalid time.
const CALENDAR_TIME = /^(\d{4})-(\d{2})-(\d{2})(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

function isInstant(value: unknown): boolean {
  const match = typeof value === 'string' ? CALENDAR_TIME.exec(value) : null;
  if (!match || Number.isNaN(Date.parse(value as string))) return false;
  const [year, month, day] = match.slice(1, 4).map(Number);
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** An ISO 8601 date or date-time (the log lists' beginTime / endTime). */
export const IsInstant = () =>
  ValidateBy({
    name: 'isDateString',
    validator: { validate: isInstant, defaultMessage: () => '$property must be an ISO 8601 date or date-time' },
  });
