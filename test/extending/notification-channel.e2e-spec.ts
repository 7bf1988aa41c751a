import { Injectable, Module } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';

import { NotificationModule } from '../../src/notification/notification.module';
import { NotificationService } from '../../src/notification/notification.service';
import {
  Delivery,
  NOTIFICATION_CHANNELS,
  NotificationChannel,
  NotificationKind,
} from '../../src/notification/notification.types';
import { LoginFailedEvent } from '../../src/user-account/account.events';
import { BACKENDS } from '../support/backends';
import { createActiveUser } from '../support/factories';
import { startApp, TestApp } from '../support/test-app';
import { waitFor } from '../support/wait';

/**
 * docs/architecture.md "Extending": a new notification channel — here a security team's feed of wrong passwords —
 * added by a module beside the service's own, delivered through the outbox like email, sms and site.
 */
@Injectable()
class SecurityFeed extends NotificationChannel {
  readonly name = 'security-feed';
  readonly received: Delivery[] = [];
  failures = 0;

  async deliver(delivery: Delivery): Promise<void> {
    if (this.failures > 0) {
      this.failures--;
      throw new Error('feed busy');
    }
    this.received.push(delivery);
  }
}

/** The module decides when its channel is used: every wrong password, whatever the strategy says. */
@Injectable()
class SecurityFeedListener {
  constructor(private readonly notifications: NotificationService) {}

  @OnEvent(LoginFailedEvent.NAME, { async: true, promisify: true })
  async onLoginFailed(e: LoginFailedEvent): Promise<void> {
    await this.notifications.notify(e.userId, NotificationKind.LOGIN_FAILED, ['security-feed'], {
      account: e.account,
      ip: e.ip,
      time: e.time.toISOString(),
      hint: e.hint,
    });
  }
}

@Module({
  imports: [NotificationModule],
  providers: [SecurityFeed, SecurityFeedListener, NOTIFICATION_CHANNELS.provide(SecurityFeed)],
})
class SecurityFeedModule {}

/** A channel under a name the service's own channels, or the outbox's column, do not allow. */
function channelModule(name: string) {
  @Injectable()
  class Named extends NotificationChannel {
    readonly name = name;
    async deliver(): Promise<void> {}
  }
  @Module({ providers: [Named, NOTIFICATION_CHANNELS.provide(Named)] })
  class NamedModule {}
  return NamedModule;
}

describe.each(BACKENDS)('extending the notification channels on $name', (backend) => {
  let app: TestApp;
  let feed: SecurityFeed;
  beforeAll(async () => {
    app = await startApp(backend, { imports: [SecurityFeedModule] });
    feed = app.app.get(SecurityFeed);
  });
  afterAll(() => app.close());

  const rows = (userId: string) =>
    app.db.query('SELECT * FROM sys_notification WHERE user_id = ? AND channel = ?', [userId, 'security-feed']);

  it('delivers through the outbox: one row, sent, with the payload of the event', async () => {
    const user = await createActiveUser(app);
    expect((await app.login(user.username, 'Wrong#pass1', { ip: '10.7.7.7' })).body.code).toBe('BAD_CREDENTIALS');
    const [row] = await waitFor(async () => {
      const found = await rows(user.id);
      return found.length === 1 && found[0].status === 'sent' && found;
    }, 'the feed row marked sent');
    expect(row).toMatchObject({ kind: 'login-failed', attempts: expect.anything() });
    const delivery = feed.received.find((d) => d.userId === user.id)!;
    expect(delivery).toMatchObject({
      channel: 'security-feed',
      kind: 'login-failed',
      payload: { account: user.username, ip: '10.7.7.7' },
    });
  });

  it('gets the outbox retries: a failed attempt is tried again once due', async () => {
    const user = await createActiveUser(app);
    feed.failures = 1;
    expect((await app.login(user.username, 'Wrong#pass1')).body.code).toBe('BAD_CREDENTIALS');
    const [failed] = await waitFor(async () => {
      const found = await rows(user.id);
      return found.length === 1 && Number(found[0].attempts) === 1 && found[0].claimed_by === null && found;
    }, 'the failed first attempt');
    expect(failed).toMatchObject({ status: 'pending', last_error: expect.stringContaining('feed busy') });
    app.clock.advance(5000);
    const [sent] = await waitFor(async () => {
      const found = await rows(user.id);
      return found[0]?.status === 'sent' && found;
    }, 'the retried row marked sent');
    expect(Number(sent.attempts)).toBe(2);
    expect(feed.received.filter((d) => d.userId === user.id)).toHaveLength(1);
  });

  it('refuses at start a second channel of the same name, and a name the outbox cannot store', async () => {
    const startWith = (name: string) =>
      startApp(backend, { provisioned: app.provisioned, imports: [channelModule(name)] });
    await expect(startWith('email')).rejects.toThrow(/already in use/);
    await expect(startWith('a-name-longer-than-16')).rejects.toThrow(/1 to 16/);
  });
});
