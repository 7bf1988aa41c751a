import { randomUUID } from 'node:crypto';

import { Logger } from '@nestjs/common';
import { hash } from 'bcrypt';
import { DataSource } from 'typeorm';

import { dataSourceOptions, MIGRATIONS } from '../../src/database/data-source-options';
import { PiiCipher } from '../../src/pii/pii-cipher';
import { PiiReencryptJob } from '../../src/user-account/pii-reencrypt.job';
import { BACKENDS } from '../support/backends';
import { FakeClock } from '../support/fake-clock';
import { startApp } from '../support/test-app';

/** The migrations that ran before identifiers were NFKC-normalised. */
const BEFORE_NFKC = MIGRATIONS.filter((m) => Number(/\d+$/.exec(m.name)![0]) < 1765500000000);

const fullWidth = (s: string) => s.replace(/[!-~]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0));
const fullWidthEmail = (email: string) => email.split('@').map(fullWidth).join('@');

/**
 * Rows stored before identifiers were normalised are brought to NFKC at the next start;
 * two accounts that would then hold the same identifier both stay as they were and are named (ids and
 * field, never the value) in the start log.
 */
describe.each(BACKENDS)('NFKC of the identifiers stored before the rule on $name', (backend) => {
  it('normalises user names, mobiles and e-mails and their identifier rows; a clash is left alone and named', async () => {
    const provisioned = await backend.provision();
    const before = new DataSource({
      ...dataSourceOptions(provisioned.env.DATABASE_URL),
      migrations: BEFORE_NFKC,
      migrationsRun: false,
    } as any);
    await before.initialize();
    await before.runMigrations();
    const password = await hash('Passw0rd!x', 4);
    const value = before.driver.escape('value');
    /** A user as the service stored it before the rule: the fields as given, the keys only lower-cased. */
    const insert = async (
      id: string,
      username: string,
      mobile: string | null,
      email: string | null,
      keys: [string, string][],
    ) => {
      await before.query(
        'INSERT INTO sys_user (id, username, name, mobile, email, password, create_time, locked, disabled) VALUES (?, ?, ?, ?, ?, ?, ?, 0, 0)',
        [id, username, username, mobile, email, password, '2024-01-01 00:00:00.000'],
      );
      for (const [kind, key] of keys) {
        await before.query(`INSERT INTO sys_user_identifier (${value}, user_id, kind) VALUES (?, ?, ?)`, [
          key,
          id,
          kind,
        ]);
      }
    };
    const [nfd, wide, ascii, lookalike] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const zoe = 'zo\u00eb@example.com';
    await insert(nfd, 'nfd_user', fullWidth('13912345678'), zoe.normalize('NFD'), [
      ['username', 'nfd_user'],
      ['mobile', fullWidth('13912345678')],
      ['email', zoe.normalize('NFD')],
    ]);
    await insert(wide, fullWidth('Wide_User'), null, null, [['username', fullWidth('wide_user')]]);
    await insert(ascii, 'ascii_user', null, 'twin@example.com', [
      ['username', 'ascii_user'],
      ['email', 'twin@example.com'],
    ]);
    await insert(lookalike, 'lookalike', null, fullWidthEmail('Twin@example.com'), [
      ['username', 'lookalike'],
      ['email', fullWidthEmail('twin@example.com')],
    ]);
    await before.destroy();

    const warn = jest.spyOn(Logger.prototype, 'warn');
    const app = await startApp(backend, { provisioned, clock: new FakeClock(new Date('2024-01-02T00:00:00Z')) });
    try {
      expect(await app.userRow(nfd)).toMatchObject({ username: 'nfd_user', mobile: '13912345678', email: zoe });
      expect(await app.userRow(wide)).toMatchObject({ username: 'Wide_User' });
      // The clash: both rows as they were.
      expect(await app.userRow(ascii)).toMatchObject({ email: 'twin@example.com' });
      expect(await app.userRow(lookalike)).toMatchObject({ email: fullWidthEmail('Twin@example.com') });

      // Logins by the plain forms find the normalised accounts.
      for (const [account, id] of [
        [zoe, nfd],
        ['13912345678', nfd],
        ['wide_user', wide],
        ['twin@example.com', ascii],
      ]) {
        const token = await app.token(account, 'Passw0rd!x');
        expect({ account, id: (await app.post('/sys/me/info', {}, { token })).body.data.id }).toEqual({ account, id });
      }
      // The rows written before encryption are moved in the background at start: wait for that here.
      await app.app.get(PiiReencryptJob).run();
      const keys = await app.db.query(
        `SELECT ${value} AS v, user_id, kind FROM sys_user_identifier WHERE user_id IN (?, ?)`,
        [nfd, wide],
      );
      expect(keys).toEqual(
        expect.arrayContaining([
          { v: 'nfd_user', user_id: nfd, kind: 'username' },
          // Mobiles and e-mails are kept as their keyed hash (docs/security.md#personal-data).
          { v: app.app.get(PiiCipher).hash('13912345678'), user_id: nfd, kind: 'mobile' },
          { v: app.app.get(PiiCipher).hash(zoe), user_id: nfd, kind: 'email' },
          { v: 'wide_user', user_id: wide, kind: 'username' },
        ]),
      );
      expect(keys).toHaveLength(4);

      // One start-log line names the two accounts and the field, never the value.
      const lines = warn.mock.calls
        .map((call) => String(call[0]))
        .filter((line) => line.includes(ascii) || line.includes(lookalike));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(ascii);
      expect(lines[0]).toContain(lookalike);
      expect(lines[0]).toContain('email');
      expect(lines[0]).not.toMatch(/twin/i);
      expect(warn.mock.calls.map((call) => String(call[0])).join('\n')).not.toMatch(/zo|example\.com|1391/);
    } finally {
      warn.mockRestore();
      await app.close();
      await provisioned.dispose();
    }
  });
});
