import { BlockList, isIP } from 'node:net';

/**
 * How the login access rules decide, as pure functions over rules already read: whom a rule
 * applies to, when it matches, and what a set of rules answers for one login. The login step and
 * POST /sys/accessRule/check both call decide(), so the console's "would this login be allowed?"
 * is the login's own answer. How rules combine: docs/security.md#login-access-rules.
 */

export type RuleAction = 'allow' | 'deny';
export const RULE_ACTIONS: readonly RuleAction[] = ['allow', 'deny'];

/** Days 1–7 (Monday = 1); start and end `HH:mm` in DISPLAY_TIMEZONE, end exclusive (`24:00` allowed); see windowCovers. */
export interface TimeWindow {
  days: number[];
  start: string;
  end: string;
}

export interface AccessRule {
  id: string;
  name: string;
  action: RuleAction;
  /** Addresses and CIDR ranges, IPv4 and IPv6; empty = any address. */
  ipRanges: string[];
  /** Empty = any time. */
  timeWindows: TimeWindow[];
  /** Role codes; with `users` both empty the rule applies to everyone. */
  roles: string[];
  users: string[];
  enabled: boolean;
}

/** Who logs in: the account and the role codes it holds. */
export interface Subject {
  userId: string;
  roles: readonly string[];
}

/** A moment as the rules read it: the weekday (1–7, Monday = 1) and the minute of the day (0–1439) in DISPLAY_TIMEZONE. */
export interface WallTime {
  day: number;
  minute: number;
}

/**
 * `none`: no enabled rule applies to the user; `allow`: an allow rule matches (and no deny);
 * `deny`: a deny rule matches; `noAllowMatch`: allow rules apply and none matches.
 */
export type DecisionReason = 'none' | 'allow' | 'deny' | 'noAllowMatch';

export interface Decision {
  allowed: boolean;
  reason: DecisionReason;
  /** The deciding rule: the matching deny, or the matching allow; null for `none` and `noAllowMatch`. */
  rule: AccessRule | null;
}

const CLOCK = /^([01]\d|2[0-3]):([0-5]\d)$/;
const DAY_MINUTES = 24 * 60;

/** Minutes since midnight of an `HH:mm` time (`24:00` only where `end`), or null when malformed. */
export function clockMinutes(text: string, { end = false } = {}): number | null {
  if (end && text === '24:00') return DAY_MINUTES;
  const m = CLOCK.exec(text);
  return m ? Number(m[1]) * 60 + Number(m[2]) : null;
}

export interface IpRange {
  address: string;
  family: 'ipv4' | 'ipv6';
  /** Absent for a single address. */
  prefix?: number;
}

/** An address or a CIDR range (`10.0.0.0/8`, `2001:db8::/32`), or null. An IPv6 zone (`%eth0`) is not an address here. */
export function parseIpRange(text: string): IpRange | null {
  const [address, prefixText, extra] = text.split('/');
  if (extra !== undefined || address.includes('%')) return null;
  const version = isIP(address);
  if (version === 0) return null;
  const family = version === 4 ? 'ipv4' : 'ipv6';
  if (prefixText === undefined) return { address, family };
  if (!/^\d{1,3}$/.test(prefixText)) return null;
  const prefix = Number(prefixText);
  return prefix <= (version === 4 ? 32 : 128) ? { address, family, prefix } : null;
}

/** A client address as a BlockList checks it; null for one that is not an address (`unknown`). */
function familyOf(ip: string): 'ipv4' | 'ipv6' | null {
  const version = isIP(ip);
  return version === 4 ? 'ipv4' : version === 6 ? 'ipv6' : null;
}

const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
const formatters = new Map<string, Intl.DateTimeFormat>();

/** The weekday and minute of `at` on the wall clocks of `timeZone` (DISPLAY_TIMEZONE). */
export function wallTime(at: Date, timeZone: string): WallTime {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      weekday: 'short',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(timeZone, f);
  }
  const parts = Object.fromEntries(f.formatToParts(at).map((p) => [p.type, p.value]));
  return { day: WEEKDAYS.indexOf(parts.weekday) + 1, minute: Number(parts.hour) * 60 + Number(parts.minute) };
}

const previousDay = (day: number) => (day === 1 ? 7 : day - 1);

/**
 * A window covers [start, end) on each of its days. One whose end is not later than its start
 * crosses midnight: it begins on each listed day and runs into the next (`Fri 22:00–06:00`
 * is Friday 22:00 to Saturday 06:00), so a night belongs to the day it starts on; an end equal to
 * the start makes a whole 24 hours (`00:00–00:00` is the day itself).
 */
export function windowCovers(window: TimeWindow, at: WallTime): boolean {
  const start = clockMinutes(window.start)!;
  const end = clockMinutes(window.end, { end: true })!;
  if (start < end) return window.days.includes(at.day) && at.minute >= start && at.minute < end;
  return (
    (window.days.includes(at.day) && at.minute >= start) ||
    (window.days.includes(previousDay(at.day)) && at.minute < end)
  );
}

/** A rule made ready to match: its ranges in one BlockList. Built from a rule that passed ruleInputProblems. */
export class CompiledRule {
  private readonly blocks = new BlockList();

  constructor(readonly rule: AccessRule) {
    for (const text of rule.ipRanges) {
      const range = parseIpRange(text);
      if (!range) continue;
      if (range.prefix === undefined) this.blocks.addAddress(range.address, range.family);
      else this.blocks.addSubnet(range.address, range.prefix, range.family);
    }
  }

  /** Named in `users`, holding one of `roles`, or both empty (everyone). */
  appliesTo(subject: Subject): boolean {
    const { roles, users } = this.rule;
    if (!roles.length && !users.length) return true;
    return users.includes(subject.userId) || roles.some((code) => subject.roles.includes(code));
  }

  /** The client IP in one of the ranges (any, when none) and the time in one of the windows (any, when none). */
  matches(ip: string, at: WallTime): boolean {
    return this.matchesIp(ip) && this.matchesTime(at);
  }

  /** Matches at every address and every time: an allow rule like this never refuses anyone it applies to. */
  get unrestricted(): boolean {
    return !this.rule.ipRanges.length && !this.rule.timeWindows.length;
  }

  private matchesIp(ip: string): boolean {
    if (!this.rule.ipRanges.length) return true;
    const family = familyOf(ip);
    return family !== null && this.blocks.check(ip, family);
  }

  private matchesTime(at: WallTime): boolean {
    return !this.rule.timeWindows.length || this.rule.timeWindows.some((w) => windowCovers(w, at));
  }
}

/**
 * The answer of the enabled `rules` for `subject` logging in from `ip` at `at`: a matching deny
 * refuses, whatever else matches; otherwise, when allow rules apply to the subject, one of them
 * must match; when none applies, the login is allowed.
 */
export function decide(rules: readonly CompiledRule[], subject: Subject, ip: string, at: WallTime): Decision {
  const applicable = rules.filter((r) => r.rule.enabled && r.appliesTo(subject));
  const deny = applicable.find((r) => r.rule.action === 'deny' && r.matches(ip, at));
  if (deny) return { allowed: false, reason: 'deny', rule: deny.rule };
  const allows = applicable.filter((r) => r.rule.action === 'allow');
  if (!allows.length) return { allowed: true, reason: 'none', rule: null };
  const allow = allows.find((r) => r.matches(ip, at));
  return allow
    ? { allowed: true, reason: 'allow', rule: allow.rule }
    : { allowed: false, reason: 'noAllowMatch', rule: null };
}

/**
 * The enabled rules that could refuse `subject` somewhere at some time, what `admin:recover`
 * disables: every deny rule that applies to the subject, and the allow rules that apply to it
 * unless one of them is unrestricted (then the allow rules never refuse it).
 */
export function refusingRules(rules: readonly CompiledRule[], subject: Subject): CompiledRule[] {
  const applicable = rules.filter((r) => r.rule.enabled && r.appliesTo(subject));
  const allows = applicable.filter((r) => r.rule.action === 'allow');
  const allowsRefuse = allows.length > 0 && !allows.some((r) => r.unrestricted);
  return applicable.filter((r) => r.rule.action === 'deny' || allowsRefuse);
}
