import { type FieldProblem, fieldProblem } from '../common/app.exception';
import { clockMinutes, parseIpRange, type TimeWindow } from './access-decision';

/**
 * The field checks of a saved rule beyond its types (the DTO's): each address or range, each
 * window's days and times. Every refused entry is named by its path (`ipRanges.1`,
 * `timeWindows.0.end`), so that a form marks the very tag or row; all of them at once.
 */
export function ruleInputProblems(input: { ipRanges: string[]; timeWindows: TimeWindow[] }): FieldProblem[] {
  const problems: FieldProblem[] = [];
  input.ipRanges.forEach((text, i) => {
    if (!parseIpRange(text)) problems.push(fieldProblem('validation.ipRange', `ipRanges.${i}`));
  });
  input.timeWindows.forEach((w, i) => {
    const at = `timeWindows.${i}`;
    const days = w.days;
    if (days.some((d) => d < 1 || d > 7) || new Set(days).size !== days.length) {
      problems.push(fieldProblem('validation.weekDay', `${at}.days`));
    }
    const start = clockMinutes(w.start);
    const end = clockMinutes(w.end, { end: true });
    if (start === null) problems.push(fieldProblem('validation.clockTime', `${at}.start`));
    if (end === null) problems.push(fieldProblem('validation.clockTime', `${at}.end`));
  });
  return problems;
}

/** Ranges as stored: trimmed, IPv6 in lower case; days in order. */
export function normalisedInput<T extends { ipRanges: string[]; timeWindows: TimeWindow[] }>(input: T): T {
  return {
    ...input,
    ipRanges: input.ipRanges.map((r) => r.trim().toLowerCase()),
    timeWindows: input.timeWindows.map((w) => ({
      days: [...w.days].sort((a, b) => a - b),
      start: w.start,
      end: w.end,
    })),
  };
}
