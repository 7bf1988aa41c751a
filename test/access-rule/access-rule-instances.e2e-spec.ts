import { mariadbRedis } from '../support/backends';
import { createActiveUser } from '../support/factories';
import { startApp } from '../support/test-app';
import { sleep } from '../support/wait';

/**
 * Each instance holds the rules in memory; a change on one reaches the others through
 * SYS_PROPS_CHANGED, as the strategies do: two instances on one database and one Redis.
 */
describe('access rules across two instances on mariadb+redis', () => {
  it('a save or a disable on instance A governs the logins of instance B at once', async () => {
    const provisioned = await mariadbRedis.provision();
    const a = await startApp(mariadbRedis, { provisioned });
    const b = await startApp(mariadbRedis, { provisioned });
    try {
      const user = await createActiveUser(a);
      const loginOnB = async () => (await b.login(user.username, user.password, { ip: '10.66.0.1' })).body.code;
      /** The answer of B within a second, polled (pub/sub delivery is asynchronous). */
      const seenOnB = async (expected: string) => {
        const started = Date.now();
        let seen = await loginOnB();
        while (seen !== expected && Date.now() - started <= 1000) {
          await sleep(50);
          seen = await loginOnB();
        }
        return { seen, withinMs: Date.now() - started <= 1000 };
      };

      // B reads the (empty) rule set first, so that its memory holds it.
      expect(await loginOnB()).toBe('OK');
      const saved = await a.admin('/sys/accessRule/save', {
        name: 'lab',
        action: 'deny',
        ipRanges: ['10.66.0.0/16'],
        users: [user.id],
      });
      expect(saved.body.code).toBe('OK');
      expect(await seenOnB('ACCESS_DENIED')).toEqual({ seen: 'ACCESS_DENIED', withinMs: true });
      const check = await b.admin('/sys/accessRule/check', { userId: user.id, ip: '10.66.0.1' });
      expect(check.body.data).toMatchObject({ allowed: false, reason: 'deny', rule: { id: saved.body.data.id } });

      const { userRefs: _refs, createTime: _c, updateTime: _u, ...rule } = saved.body.data;
      expect((await a.admin('/sys/accessRule/save', { ...rule, enabled: false })).body.code).toBe('OK');
      expect(await seenOnB('OK')).toEqual({ seen: 'OK', withinMs: true });

      expect((await a.admin('/sys/accessRule/save', { ...rule, enabled: true })).body.code).toBe('OK');
      expect(await seenOnB('ACCESS_DENIED')).toEqual({ seen: 'ACCESS_DENIED', withinMs: true });
      expect((await a.admin('/sys/accessRule/delete', { id: rule.id })).body.code).toBe('OK');
      expect(await seenOnB('OK')).toEqual({ seen: 'OK', withinMs: true });
    } finally {
      await a.close();
      await b.close();
      await provisioned.dispose();
    }
  });
});
