import {
  type AccessRule,
  clockMinutes,
  CompiledRule,
  decide,
  parseIpRange,
  refusingRules,
  wallTime,
  windowCovers,
} from './access-decision';
import { ruleInputProblems } from './access-rule-input';

let seq = 0;
const rule = (fields: Partial<AccessRule>): CompiledRule =>
  new CompiledRule({
    id: `r${++seq}`,
    name: `rule ${seq}`,
    action: 'allow',
    ipRanges: [],
    timeWindows: [],
    roles: [],
    users: [],
    enabled: true,
    ...fields,
  });

const alice = { userId: 'u-alice', roles: ['ops'] };
const bob = { userId: 'u-bob', roles: [] };
/** Wednesday 10:00. */
const WED_10 = { day: 3, minute: 600 };

describe('parseIpRange', () => {
  it.each(['10.0.0.1', '10.0.0.0/8', '0.0.0.0/0', '192.168.1.7/32', '::1', '2001:db8::/32', '::/0', 'fe80::1/128'])(
    'takes %s',
    (text) => expect(parseIpRange(text)).not.toBeNull(),
  );

  it.each([
    '',
    '10.0.0',
    '10.0.0.0/33',
    '2001:db8::/129',
    '10.0.0.0/',
    '10.0.0.0/8/1',
    '10.0.0.0/-1',
    'fe80::1%eth0',
    'x/8',
    '10.0.0.0/08x',
  ])('refuses %p', (text) => expect(parseIpRange(text)).toBeNull());
});

describe('clockMinutes', () => {
  it('reads HH:mm, and 24:00 only as an end', () => {
    expect(clockMinutes('00:00')).toBe(0);
    expect(clockMinutes('23:59')).toBe(1439);
    expect(clockMinutes('24:00')).toBeNull();
    expect(clockMinutes('24:00', { end: true })).toBe(1440);
    for (const bad of ['9:00', '09:0', '24:01', '12:60', '09:00:00', ' 09:00']) expect(clockMinutes(bad)).toBeNull();
  });
});

describe('wallTime', () => {
  // 2025-01-05 is a Sunday; 17:30 UTC is Monday 01:30 in Shanghai.
  const at = new Date('2025-01-05T17:30:00Z');

  it('reads the weekday (Monday = 1) and minute in the zone given', () => {
    expect(wallTime(at, 'UTC')).toEqual({ day: 7, minute: 17 * 60 + 30 });
    expect(wallTime(at, 'Asia/Shanghai')).toEqual({ day: 1, minute: 90 });
    expect(wallTime(at, 'America/New_York')).toEqual({ day: 7, minute: 12 * 60 + 30 });
  });
});

describe('windowCovers', () => {
  const office = { days: [1, 2, 3, 4, 5], start: '09:00', end: '18:00' };

  it('covers [start, end) on its days', () => {
    expect(windowCovers(office, { day: 1, minute: 9 * 60 })).toBe(true);
    expect(windowCovers(office, { day: 5, minute: 18 * 60 - 1 })).toBe(true);
    expect(windowCovers(office, { day: 5, minute: 18 * 60 })).toBe(false);
    expect(windowCovers(office, { day: 3, minute: 9 * 60 - 1 })).toBe(false);
    expect(windowCovers(office, { day: 6, minute: 10 * 60 })).toBe(false);
  });

  it('runs past midnight into the next day when the end is earlier than the start', () => {
    const night = { days: [5], start: '22:00', end: '06:00' }; // Friday night
    expect(windowCovers(night, { day: 5, minute: 22 * 60 })).toBe(true);
    expect(windowCovers(night, { day: 6, minute: 6 * 60 - 1 })).toBe(true); // Saturday 05:59
    expect(windowCovers(night, { day: 6, minute: 6 * 60 })).toBe(false);
    expect(windowCovers(night, { day: 5, minute: 21 * 60 + 59 })).toBe(false);
    expect(windowCovers(night, { day: 5, minute: 3 * 60 })).toBe(false); // Friday's early hours belong to Thursday night
    expect(windowCovers(night, { day: 6, minute: 23 * 60 })).toBe(false);
    // Sunday night runs into Monday (7 → 1).
    expect(windowCovers({ days: [7], start: '23:00', end: '01:00' }, { day: 1, minute: 30 })).toBe(true);
  });

  it('makes 24 hours of a window whose end equals its start', () => {
    const day = { days: [3], start: '00:00', end: '00:00' };
    expect(windowCovers(day, { day: 3, minute: 0 })).toBe(true);
    expect(windowCovers(day, { day: 3, minute: 1439 })).toBe(true);
    expect(windowCovers(day, { day: 4, minute: 0 })).toBe(false);
    const shift = { days: [3], start: '09:00', end: '09:00' };
    expect(windowCovers(shift, { day: 4, minute: 8 * 60 + 59 })).toBe(true);
    expect(windowCovers(shift, { day: 4, minute: 9 * 60 })).toBe(false);
    expect(windowCovers(shift, { day: 3, minute: 8 * 60 + 59 })).toBe(false);
  });

  it('ends at midnight with 24:00', () => {
    const evening = { days: [3], start: '18:00', end: '24:00' };
    expect(windowCovers(evening, { day: 3, minute: 1439 })).toBe(true);
    expect(windowCovers(evening, { day: 4, minute: 0 })).toBe(false);
  });
});

describe('decide', () => {
  it('allows when no enabled rule applies', () => {
    expect(decide([], bob, '10.0.0.1', WED_10)).toEqual({ allowed: true, reason: 'none', rule: null });
    const disabled = rule({ action: 'deny', enabled: false });
    expect(decide([disabled], bob, '10.0.0.1', WED_10).allowed).toBe(true);
    const forAlice = rule({ action: 'deny', users: ['u-alice'] });
    expect(decide([forAlice], bob, '10.0.0.1', WED_10).reason).toBe('none');
  });

  it('allows by an IPv4 or IPv6 range, and refuses outside every allow rule', () => {
    const office = rule({ ipRanges: ['10.1.0.0/16', '2001:db8:1::/48', '192.168.5.5'] });
    for (const ip of ['10.1.200.3', '2001:db8:1:ffff::9', '192.168.5.5']) {
      expect(decide([office], bob, ip, WED_10)).toEqual({ allowed: true, reason: 'allow', rule: office.rule });
    }
    for (const ip of ['10.2.0.1', '2001:db8:2::1', '192.168.5.6', 'unknown']) {
      expect(decide([office], bob, ip, WED_10)).toEqual({ allowed: false, reason: 'noAllowMatch', rule: null });
    }
  });

  it('lets a matching deny win over a matching allow', () => {
    const allow = rule({ ipRanges: ['10.0.0.0/8'] });
    const deny = rule({ action: 'deny', ipRanges: ['10.66.0.0/16'] });
    expect(decide([allow, deny], bob, '10.66.1.1', WED_10)).toEqual({
      allowed: false,
      reason: 'deny',
      rule: deny.rule,
    });
    expect(decide([allow, deny], bob, '10.67.1.1', WED_10).allowed).toBe(true);
  });

  it('needs both the address and the time of one rule to match', () => {
    const office = rule({
      ipRanges: ['10.0.0.0/8'],
      timeWindows: [{ days: [1, 2, 3, 4, 5], start: '09:00', end: '18:00' }],
    });
    expect(decide([office], bob, '10.0.0.1', WED_10).allowed).toBe(true);
    expect(decide([office], bob, '10.0.0.1', { day: 6, minute: 600 }).allowed).toBe(false);
    expect(decide([office], bob, '11.0.0.1', WED_10).allowed).toBe(false);
  });

  it('applies a rule to its users, to holders of its roles, or to everyone when it names neither', () => {
    const byRole = rule({ action: 'deny', roles: ['ops'] });
    const byUser = rule({ action: 'deny', users: ['u-bob'] });
    expect(decide([byRole], alice, '10.0.0.1', WED_10).allowed).toBe(false);
    expect(decide([byRole], bob, '10.0.0.1', WED_10).allowed).toBe(true);
    expect(decide([byUser], bob, '10.0.0.1', WED_10).allowed).toBe(false);
    expect(decide([byUser], alice, '10.0.0.1', WED_10).allowed).toBe(true);
    const everyone = rule({ ipRanges: ['10.0.0.0/8'] });
    expect(decide([everyone], alice, '11.0.0.1', WED_10).allowed).toBe(false);
    expect(decide([everyone], bob, '11.0.0.1', WED_10).allowed).toBe(false);
  });

  it('lets any one of the applicable allow rules admit', () => {
    const office = rule({ ipRanges: ['10.0.0.0/8'] });
    const vpnForOps = rule({ ipRanges: ['172.16.0.0/12'], roles: ['ops'] });
    expect(decide([office, vpnForOps], alice, '172.16.3.3', WED_10).rule).toBe(vpnForOps.rule);
    expect(decide([office, vpnForOps], bob, '172.16.3.3', WED_10).allowed).toBe(false);
  });
});

describe('refusingRules', () => {
  it('names the denies that apply and, unless one allow is unrestricted, the allows that apply', () => {
    const deny = rule({ action: 'deny', ipRanges: ['1.2.3.4'] });
    const otherDeny = rule({ action: 'deny', users: ['u-other'] });
    const office = rule({ ipRanges: ['10.0.0.0/8'] });
    const disabled = rule({ action: 'deny', enabled: false });
    expect(refusingRules([deny, otherDeny, office, disabled], bob)).toEqual([deny, office]);
    const anywhereForBob = rule({ users: ['u-bob'] });
    expect(refusingRules([deny, office, anywhereForBob], bob)).toEqual([deny]);
  });
});

describe('ruleInputProblems', () => {
  it('names every bad entry by its path, in both languages', () => {
    const problems = ruleInputProblems({
      ipRanges: ['10.0.0.0/8', '10.0.0.0/40', 'nope'],
      timeWindows: [
        { days: [1, 8], start: '9:00', end: '18:00' },
        { days: [2, 2], start: '08:00', end: '08:00' },
        { days: [3], start: '24:00', end: '24:00' },
        { days: [4], start: '08:00', end: '8:00' },
      ],
    });
    expect(problems.map((p) => p.field)).toEqual([
      'ipRanges.1',
      'ipRanges.2',
      'timeWindows.0.days',
      'timeWindows.0.start',
      'timeWindows.1.days',
      'timeWindows.2.start',
      'timeWindows.3.end',
    ]);
    expect(problems[0]).toEqual({
      field: 'ipRanges.1',
      zh: 'IP范围第2项不是IP地址或CIDR网段(如192.168.1.10、10.0.0.0/8、2001:db8::/32)',
      en: 'IP ranges entry 2: not an IP address or a CIDR range (such as 192.168.1.10, 10.0.0.0/8 or 2001:db8::/32)',
    });
  });

  it('takes good input', () => {
    expect(
      ruleInputProblems({
        ipRanges: ['::1', '0.0.0.0/0'],
        timeWindows: [
          { days: [7, 1], start: '22:00', end: '06:00' },
          { days: [3], start: '00:00', end: '24:00' },
        ],
      }),
    ).toEqual([]);
  });
});
