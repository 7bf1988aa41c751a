import type { Readable } from 'node:stream';

import { Logger } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';

import { FakeClock } from '../../test/support/fake-clock';
import { unit } from '../../test/support/unit';
import type { Actor } from '../common/auth-context';
import { AuditRecordedEvent } from './audit.events';
import { AuditLogEntity } from './audit-log.entity';
import { AuditLogCursor, AuditLogFilter, AuditLogRepository } from './audit-log.repository';
import { AuditLogService, changedFields, SYSTEM_ACTOR } from './audit-log.service';

const FIELDS_CSV = { format: 'csv', columns: 'fields', locale: 'zh', timeZone: 'UTC' } as const;

/** sys_audit_log as an array; filters only by action, and keeps the filters it was asked for. */
class FakeAuditRows implements Pick<AuditLogRepository, keyof AuditLogRepository> {
  rows: AuditLogEntity[] = [];
  filters: AuditLogFilter[] = [];
  failWith: unknown = null;

  onModuleInit() {}
  async insert(row: Omit<AuditLogEntity, 'id'>) {
    if (this.failWith) throw this.failWith;
    this.rows.push({ ...row, id: String(this.rows.length + 1) });
  }
  async page(filter: AuditLogFilter, pageNum: number, pageSize: number): Promise<[AuditLogEntity[], number]> {
    const matching = this.matching(filter);
    return [matching.slice((pageNum - 1) * pageSize, pageNum * pageSize), matching.length];
  }
  async slice(filter: AuditLogFilter, cursor: AuditLogCursor | null, size: number) {
    return this.matching(filter)
      .filter((r) => !cursor || Number(r.id) < Number(cursor.id))
      .slice(0, size);
  }
  private matching(filter: AuditLogFilter) {
    this.filters.push(filter);
    return this.rows.filter((r) => !filter.action || r.action === filter.action).reverse();
  }
}

async function textOf(stream: Readable): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += String(chunk);
  return text;
}

describe('AuditLogService (who did what to whom, kept and shown to administrators)', () => {
  let clock: FakeClock;
  let rows: FakeAuditRows;
  let audit: AuditLogService;
  let announced: AuditRecordedEvent[];
  const admin = { id: 'a1', name: 'admin', ip: '10.0.0.9', codes: ['*'] } as Actor;

  beforeEach(async () => {
    clock = new FakeClock(new Date('2025-06-01T00:00:00Z'));
    rows = new FakeAuditRows();
    const events = new EventEmitter2();
    announced = [];
    events.on(AuditRecordedEvent.NAME, (e: AuditRecordedEvent) => announced.push(e));
    ({ service: audit } = await unit(AuditLogService, {
      AuditLogRepository: rows,
      Clock: clock,
      EventEmitter2: events,
    }));
  });

  it('records the actor, action, target, what changed and the time', async () => {
    await audit.record({
      action: 'user.lock',
      actorId: 'a1',
      actorName: 'admin',
      targetId: 'u1',
      targetName: 'zhangsan',
      ip: '10.0.0.9',
      detail: { username: 'zhangsan', ...changedFields({ locked: false, name: 'x' }, { locked: true, name: 'x' }) },
    });
    expect(rows.rows).toEqual([
      {
        id: '1',
        userId: 'a1',
        username: 'admin',
        action: 'user.lock',
        target: 'u1',
        targetName: 'zhangsan',
        detail: JSON.stringify({ username: 'zhangsan', old: { locked: false }, new: { locked: true } }),
        piiDetail: null,
        ip: '10.0.0.9',
        createTime: clock.now(),
      },
    ]);
  });

  it('records an action of the service itself with no IP, and cuts long values to their columns', async () => {
    await audit.record({
      action: 'log.retention',
      ...SYSTEM_ACTOR,
      targetId: 't'.repeat(200),
      targetName: 'n'.repeat(100),
    });
    expect(rows.rows[0]).toMatchObject({ userId: 'system', username: 'system', ip: '', detail: null });
    expect([rows.rows[0].target!.length, rows.rows[0].targetName!.length]).toEqual([128, 64]);
  });

  it('rejects record() when the row cannot be written, so that the caller knows', async () => {
    rows.failWith = new Error('db gone');
    await expect(audit.record({ action: 'user.create', ...SYSTEM_ACTOR, targetId: 'u1' })).rejects.toThrow('db gone');
    // Nothing is announced for a row that is not there.
    expect(announced).toEqual([]);
  });

  it('announces each written row with its entry and time (what webhooks are told)', async () => {
    const entry = { action: 'user.unlock' as const, ...SYSTEM_ACTOR, targetId: 'u1', targetName: 'zhangsan' };
    await audit.record(entry);
    expect(announced).toEqual([new AuditRecordedEvent(entry, clock.now())]);
  });

  it('never rejects recordDone(), when the write or the reading of the entry fails: the action is done', async () => {
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    rows.failWith = new Error('db gone');
    await expect(audit.recordDone('user.enable', { ...SYSTEM_ACTOR, targetId: 'u1' })).resolves.toBeUndefined();
    rows.failWith = null;
    await expect(
      audit.recordDone('user.enable', async () => {
        throw new Error('user gone');
      }),
    ).resolves.toBeUndefined();
    await audit.recordDone('user.enable', async () => ({ ...SYSTEM_ACTOR, targetId: 'u2' }));
    expect(rows.rows.map((r) => `${r.action}:${r.target}`)).toEqual(['user.enable:u2']);
    // The failure is logged by its kind only: an error's message may carry what the row held.
    expect(logged.mock.calls.map(([m]) => m)).toEqual([
      'could not write the audit record of user.enable: Error',
      'could not write the audit record of user.enable: Error',
    ]);
    logged.mockRestore();
  });

  it('lists newest first, with the changes as an object and the filters as given', async () => {
    await audit.record({ action: 'user.lock', ...SYSTEM_ACTOR, targetId: 'u1', detail: { reason: 'failures' } });
    clock.advanceMinutes(1);
    await audit.record({ action: 'user.unlock', ...SYSTEM_ACTOR, targetId: 'u1' });
    const page = await audit.list({ pageNum: 1, pageSize: 10, beginTime: '2025-06-01T00:00:00Z' });
    expect(page.total).toBe(2);
    expect(page.rows.map((r) => [r.action, r.detail])).toEqual([
      ['user.unlock', null],
      ['user.lock', { reason: 'failures' }],
    ]);
    expect(rows.filters[0].from).toEqual(new Date('2025-06-01T00:00:00Z'));
  });

  it('audits an export before the first byte, then writes every matching row as CSV, newest first', async () => {
    for (let i = 0; i < 2_500; i++) await audit.record({ action: 'user.update', ...SYSTEM_ACTOR, targetId: `u${i}` });
    await audit.record({ action: 'user.delete', ...SYSTEM_ACTOR, targetId: 'other' });
    const csv = (await audit.export({ action: 'user.update' }, admin, FIELDS_CSV)).getStream();
    expect(rows.rows.at(-1)).toMatchObject({
      action: 'auditLog.export',
      userId: 'a1',
      ip: '10.0.0.9',
      detail: JSON.stringify({ filters: { action: 'user.update' } }),
    });
    const lines = (await textOf(csv)).split('\r\n').filter(Boolean);
    expect(lines[0]).toBe('\uFEFFid,userId,username,action,target,targetName,detail,ip,createTime');
    expect(lines).toHaveLength(1 + 2_500);
    expect(lines[1]).toContain(',u2499,');
    expect(lines.at(-1)).toContain(',u0,');
  });
});
