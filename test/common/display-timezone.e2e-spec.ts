import { join } from 'node:path';

import { NotificationService } from '../../src/notification/notification.service';
import { BACKENDS } from '../support/backends';
import { buildCommands, runCommand } from '../support/built-command';
import { createActiveUser } from '../support/factories';
import { startApp, TestApp } from '../support/test-app';

/** The instant as wall time in UTC+08:00 (Asia/Shanghai has kept +08:00 without DST since 1991), worked out by hand. */
const shanghai = (d: Date) => {
  const wall = new Date(d.getTime() + 8 * 3_600_000).toISOString();
  return `${wall.slice(0, 10)} ${wall.slice(11, 19)} (UTC+08:00)`;
};

/** DISPLAY_TIMEZONE for the texts the service writes for people, and the console's times. */
describe.each(BACKENDS)('DISPLAY_TIMEZONE on $name', (backend) => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startApp(backend, { env: { DISPLAY_TIMEZONE: 'Asia/Shanghai' } });
  });
  afterAll(() => app.close());

  it('a notification text shows the time in the zone, with +08:00', async () => {
    const user = await createActiveUser(app);
    await app.saveLoginStrategy({ sendMsgWhenErrorLogin: 'site' });
    try {
      // To the next 20:30:15 UTC (less than a day on: no password expires), which is 04:30:15 of the
      // next day in Shanghai: the date moves too.
      const now = app.clock.now();
      const next = new Date(now);
      next.setUTCHours(20, 30, 15, 0);
      if (next <= now) next.setUTCDate(next.getUTCDate() + 1);
      app.clock.set(next);
      const at = app.clock.now();
      const nextDay = new Date(at.getTime() + 86_400_000).toISOString().slice(0, 10);
      expect((await app.login(user.username, 'Wrong#pass1', { ip: '10.40.50.60' })).body.code).toBe('BAD_CREDENTIALS');
      await app.app.get(NotificationService).deliverDue();
      const token = await app.token(user.username, user.password);
      const res = await app.post('/sys/message/list', { pageNum: 1, pageSize: 10 }, { token });
      const [message] = res.body.data.rows;
      expect(shanghai(at)).toBe(`${nextDay} 04:30:15 (UTC+08:00)`);
      expect(message.content).toContain(`尝试登录时间:${shanghai(at)}`);
    } finally {
      await app.saveLoginStrategy({ sendMsgWhenErrorLogin: '' });
    }
  });

  it('/sys/me/info tells the console the zone', async () => {
    expect((await app.admin('/sys/me/info')).body.data.displayTimeZone).toBe('Asia/Shanghai');
  });
});

describe('DISPLAY_TIMEZONE that is not a zone', () => {
  it('stops the start with a message naming the variable', async () => {
    const dist = await buildCommands();
    const result = await runCommand(
      join(dist, 'src', 'main.js'),
      [],
      {
        DISPLAY_TIMEZONE: 'Mars/Olympus_Mons',
        DATABASE_URL: 'sqlite::memory:',
        PORT: '0',
      },
      120_000,
    );
    expect(result.code).toBe(1);
    expect(`${result.stdout}${result.stderr}`).toMatch(/DISPLAY_TIMEZONE.*IANA time zone name/);
  }, 240_000);
});
