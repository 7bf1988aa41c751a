import { LogSealer } from '../../src/log-seal/log-sealer';
import { NotificationService } from '../../src/notification/notification.service';
import { BACKENDS } from '../support/backends';
import { createActiveUser } from '../support/factories';
import { Received, selfSignedCertificate, SyslogCollector } from '../support/syslog-collector';
import { ADMIN_PASSWORD, startApp, TestApp } from '../support/test-app';
import { waitFor } from '../support/wait';

/**
 * SYSLOG_URL (docs/operations.md#forwarding-to-syslog): every login-log and audit-log row also
 * reaches a syslog collector as an RFC 5424 message; over TCP and TLS through the outbox, so a
 * collector that is down gets every row once it is back, each once.
 */
jest.setTimeout(90_000);

const WRONG = 'Wrong#pass1';

/** Logins (good and bad), a password change and administrative actions; the secrets it used. */
async function someActivity(app: TestApp): Promise<string[]> {
  const user = await createActiveUser(app);
  await app.login(user.username, WRONG);
  const token = await app.token(user.username, user.password);
  await app.admin('/sys/user/lock', { id: user.id });
  await app.admin('/sys/user/unlock', { id: user.id });
  await app.admin('/sys/user/resetPass', { id: user.id });
  return [user.password, 'Initial#1a', WRONG, ADMIN_PASSWORD, token, await app.adminToken()];
}

/** Every sealed row of both logs, as `msgid:id`. */
async function sealedRows(app: TestApp): Promise<string[]> {
  const ids = async (table: string, msgid: string) =>
    (await app.db.query(`SELECT id FROM ${table} WHERE seal_seq IS NOT NULL`)).map(
      (r: { id: unknown }) => `${msgid}:${String(r.id)}`,
    );
  return [...(await ids('sys_login_log', 'login')), ...(await ids('sys_audit_log', 'audit'))].sort();
}

const keysOf = (received: Received[]) => received.map((m) => `${m.msgid}:${m.body.id}`).sort();

/** What every forwarded message must be: the header of the service, and no secret anywhere. */
function expectWellFormedAndClean(received: Received[], secrets: string[]) {
  for (const m of received) {
    expect(m.text).toMatch(/^<\d+>1 \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z \S+ lps \d+ (login|audit) - \uFEFF\{/);
    expect(m.appName).toBe('lps');
    // authpriv (10) for logins, log audit (13) for the audit log.
    expect(Math.floor(m.pri / 8)).toBe(m.msgid === 'login' ? 10 : 13);
    for (const secret of secrets) expect(m.text).not.toContain(secret);
    expect(m.text).not.toMatch(/password"\s*:/i);
  }
  const login = received.find((m) => m.msgid === 'login')!.body;
  expect(Object.keys(login).sort()).toEqual(
    [
      'id',
      'userId',
      'account',
      'userName',
      'loginType',
      'status',
      'ip',
      'browser',
      'os',
      'loginTime',
      'failureReason',
      'failureCode',
      'sealSeq',
      'seal',
    ].sort(),
  );
}

describe.each(BACKENDS)('forwarding to syslog on $name', (backend) => {
  it('over TCP: a collector that was down gets every row once it is back, each exactly once', async () => {
    const collector = await new SyslogCollector('tcp').start();
    await collector.stop();
    const app = await startApp(backend, { env: { SYSLOG_URL: collector.url } });
    try {
      const secrets = await someActivity(app);
      await app.app.get(LogSealer).sealNow();
      // Queued in the outbox, tried and refused (nobody listens), kept for another try.
      const tried = async () =>
        (await app.db.query("SELECT status, attempts FROM sys_notification WHERE channel = 'syslog'")) as {
          status: string;
          attempts: number;
        }[];
      await waitFor(async () => {
        const rows = await tried();
        return rows.length > 0 && rows.every((r) => r.status === 'pending' && Number(r.attempts) >= 1);
      }, 'the outbox to try the syslog batches once');
      const expected = await sealedRows(app);
      // Never given up, however long the collector stays away (other channels fail after 10 tries).
      // The rows tried so far are set to 40 tries; a batch queued meanwhile is left as it is, and a
      // row still being tried by the background worker is tried again on the second round.
      const stuck = (
        (await app.db.query("SELECT id FROM sys_notification WHERE channel = 'syslog'")) as { id: string }[]
      ).map((r) => r.id);
      await app.db.query(
        `UPDATE sys_notification SET attempts = 40 WHERE id IN (${stuck.map(() => '?').join(', ')})`,
        stuck,
      );
      for (let round = 0; round < 2; round++) {
        app.clock.advanceMinutes(120);
        await app.app.get(NotificationService).deliverDue();
      }
      const after = (await app.db.query(
        "SELECT id, status, attempts FROM sys_notification WHERE channel = 'syslog'",
      )) as {
        id: string;
        status: string;
        attempts: number;
      }[];
      expect(after.map((r) => r.status)).toEqual(after.map(() => 'pending'));
      expect(after.filter((r) => stuck.includes(r.id)).map((r) => Number(r.attempts) > 40)).toEqual(
        stuck.map(() => true),
      );

      await collector.start();
      // The retries come due (a try still in flight when the collector came back is due again later).
      await waitFor(
        async () => {
          app.clock.advanceMinutes(10);
          await app.app.get(NotificationService).deliverDue();
          return collector.received.length >= expected.length;
        },
        'every row at the collector',
        10_000,
        100,
      );
      await app.app.get(NotificationService).deliverDue();

      expect(keysOf(collector.received)).toEqual(expected);
      expect((await tried()).every((r) => r.status === 'sent')).toBe(true);
      expectWellFormedAndClean(collector.received, secrets);
      // A row written from now on follows, once.
      await app.login('someone_new', WRONG);
      await app.app.get(LogSealer).sealNow();
      await waitFor(() => collector.received.length === expected.length + 1, 'the new row');
      expect(collector.received.at(-1)!.body).toMatchObject({ account: 'someone_new', status: 'passwrong' });
    } finally {
      await app.close();
      await collector.stop();
    }
  });

  it('over UDP: every row, one datagram each', async () => {
    const collector = await new SyslogCollector('udp').start();
    const app = await startApp(backend, { env: { SYSLOG_URL: collector.url } });
    try {
      const secrets = await someActivity(app);
      await app.app.get(LogSealer).sealNow();
      const expected = await sealedRows(app);
      await waitFor(() => collector.received.length >= expected.length, 'every row at the collector');
      expect(keysOf(collector.received)).toEqual(expected);
      expectWellFormedAndClean(collector.received, secrets);
      // Not through the outbox: nothing to retry.
      expect(await app.db.query("SELECT id FROM sys_notification WHERE channel = 'syslog'")).toEqual([]);
    } finally {
      await app.close();
      await collector.stop();
    }
  });

  it('over TLS: to a collector whose certificate chains to SYSLOG_CA_FILE; an untrusted one gets nothing and the rows wait', async () => {
    const certificate = selfSignedCertificate();
    const collector = await new SyslogCollector('tls', certificate).start();
    const app = await startApp(backend, {
      env: { SYSLOG_URL: collector.url, SYSLOG_CA_FILE: certificate.certFile },
    });
    try {
      const secrets = await someActivity(app);
      await app.app.get(LogSealer).sealNow();
      const expected = await sealedRows(app);
      await waitFor(() => collector.received.length >= expected.length, 'every row at the collector', 10_000);
      expect(keysOf(collector.received)).toEqual(expected);
      expectWellFormedAndClean(collector.received, secrets);
    } finally {
      await app.close();
    }

    // The same collector, but the service trusts only the system's CAs.
    const untrusting = await startApp(backend, { env: { SYSLOG_URL: collector.url } });
    try {
      const before = collector.received.length;
      await untrusting.login('nobody', WRONG);
      await untrusting.app.get(LogSealer).sealNow();
      const waiting = await waitFor(async () => {
        const rows = await untrusting.db.query(
          "SELECT status, last_error FROM sys_notification WHERE channel = 'syslog' AND last_error IS NOT NULL",
        );
        return rows.length ? rows : null;
      }, 'a refused try');
      expect(waiting[0].status).toBe('pending');
      expect(waiting[0].last_error).toMatch(/SELF_SIGNED|self.signed|certificate/i);
      expect(collector.received.length).toBe(before);
    } finally {
      await untrusting.close();
      await collector.stop();
      certificate.dispose();
    }
  });
});
