import { FakeClock } from '../../test/support/fake-clock';
import { unit } from '../../test/support/unit';
import { SysPropsChangedEvent } from '../strategy/strategy.types';
import type { AccessRuleEntity } from './access-rule.entity';
import { ACCESS_RULES_GROUP, AccessRuleService } from './access-rule.service';

/** The rules table, counting reads; a read can be held until released. */
function storedRules() {
  const rows: AccessRuleEntity[] = [];
  let reads = 0;
  let hold: Promise<void> | null = null;
  return {
    rows,
    reads: () => reads,
    repository: {
      async all() {
        reads += 1;
        const snapshot = rows.map((r) => ({ ...r }));
        await hold;
        return snapshot;
      },
    },
    holdReads() {
      let release!: () => void;
      hold = new Promise<void>((resolve) => (release = resolve));
      return () => {
        hold = null;
        release();
      };
    },
  };
}

const denyFrom = (range: string): AccessRuleEntity => ({
  id: `r-${range}`,
  name: range,
  action: 'deny',
  ipRanges: [range],
  timeWindows: [],
  roles: [],
  users: [],
  enabled: true,
  createTime: new Date(0),
  updateTime: new Date(0),
});

async function serviceOver(table: ReturnType<typeof storedRules>, clock = new FakeClock()) {
  const { service } = await unit(AccessRuleService, {
    AccessRuleRepository: table.repository,
    Clock: clock,
    AppConfig: { DISPLAY_TIMEZONE: 'UTC' },
  });
  return service;
}
const changed = (service: AccessRuleService) => service.onChanged(new SysPropsChangedEvent(ACCESS_RULES_GROUP, true));

describe('AccessRuleService: the rules on the login path', () => {
  it('reads the table once for many logins, again after a change, and after a minute at the latest', async () => {
    const table = storedRules();
    const clock = new FakeClock();
    const service = await serviceOver(table, clock);
    for (let i = 0; i < 50; i += 1) expect((await service.decide('u1', '10.0.0.1', clock.now())).allowed).toBe(true);
    expect(table.reads()).toBe(1);

    table.rows.push(denyFrom('10.0.0.0/8'));
    service.onChanged(new SysPropsChangedEvent('user_login_strategy', true)); // another group: kept
    expect((await service.decide('u1', '10.0.0.1', clock.now())).allowed).toBe(true);
    changed(service);
    expect((await service.decide('u1', '10.0.0.1', clock.now())).reason).toBe('deny');
    expect(table.reads()).toBe(2);

    table.rows.length = 0;
    clock.advance(59_000);
    expect((await service.decide('u1', '10.0.0.1', clock.now())).allowed).toBe(false);
    clock.advance(2_000);
    expect((await service.decide('u1', '10.0.0.1', clock.now())).allowed).toBe(true);
    expect(table.reads()).toBe(3);
  });

  it('does not keep rules read before a change that landed while they were being read', async () => {
    const table = storedRules();
    const service = await serviceOver(table);
    const release = table.holdReads();
    const stale = service.decide('u1', '10.0.0.1', new Date());
    table.rows.push(denyFrom('10.0.0.0/8'));
    changed(service);
    release();
    expect((await stale).allowed).toBe(true);
    expect((await service.decide('u1', '10.0.0.1', new Date())).allowed).toBe(false);
  });
});
