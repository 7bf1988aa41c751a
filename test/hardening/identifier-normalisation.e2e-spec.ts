import { randomBytes } from 'node:crypto';

import { PiiCipher } from '../../src/pii/pii-cipher';
import { BACKENDS } from '../support/backends';
import { createUser } from '../support/factories';
import { namesLabel } from '../support/field-errors';
import { startApp, TestApp } from '../support/test-app';

const tag = () => randomBytes(4).toString('hex');
const mobileOf = () => `137${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;
/** ASCII letters and digits as their full-width forms (U+FF01…), which NFKC maps back. */
const fullWidth = (s: string) => s.replace(/[!-~]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0));
/** An e-mail with full-width letters, the `@` as typed on an ASCII keyboard. */
const fullWidthEmail = (email: string) => email.split('@').map(fullWidth).join('@');

const ZWSP = '\u200b';
const RLO = '\u202e';
const CYRILLIC_A = '\u0430';

/**
 * The probe's look-alikes of one e-mail (NFC and NFD,
 * a trailing zero-width space, a Cyrillic а, full-width letters, a bidi override) either are the
 * same account or are refused, on both databases; logins find an account by any NFKC form.
 */
describe.each(BACKENDS)('identifiers are NFKC-normalised on $name', (backend) => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startApp(backend);
  });
  afterAll(() => app.close());

  const create = async (fields: Record<string, unknown>, headers?: Record<string, string>) =>
    app.post(
      '/sys/user/create',
      { name: 'Norm', password: await app.encrypt('Passw0rd!x'), ...fields },
      { token: await app.adminToken(), ip: '10.9.9.9', headers },
    );
  // The e-mails are sealed at rest (docs/security.md#personal-data): every row is opened and matched here.
  const usersWithEmailLike = async (local: string) => {
    const pii = app.app.get(PiiCipher);
    const rows = (await app.db.query('SELECT id, email FROM sys_user WHERE email IS NOT NULL')) as {
      id: string;
      email: string;
    }[];
    return rows.map((r) => ({ id: r.id, email: pii.reveal(r.email) })).filter((r) => r.email.includes(local));
  };
  /** VALIDATION_FAILED naming exactly `field`, its message naming it too (by its label). */
  const refusedOn = (res: { status: number; body: any }, field: string) => {
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_FAILED' });
    expect(res.body.data.errors.map((e: any) => e.field)).toEqual([field]);
    expect(namesLabel(res.body.message, field)).toBe(true);
  };
  /** Refused because another user holds the value, not for its form. */
  const takenOn = (res: { status: number; body: any }, field: string) => {
    refusedOn(res, field);
    expect(res.body.message).toContain('已被其他用户');
  };

  describe("the probe's look-alikes of one e-mail make no second account", () => {
    it('NFD and NFC forms are one e-mail: the NFD one is taken, and one given in NFD is stored in NFC', async () => {
      const local = `jose${tag()}`;
      const nfc = `${local.replace('jose', 'jos\u00e9')}@example.com`;
      const nfd = nfc.normalize('NFD');
      expect(nfd).not.toBe(nfc);
      expect((await create({ username: `nfc_${tag()}`, email: nfc })).body).toMatchObject({ success: true });
      takenOn(await create({ username: `nfd_${tag()}`, email: nfd }), 'email');
      expect(await usersWithEmailLike(local.slice(4))).toEqual([expect.objectContaining({ email: nfc })]);

      const other = `${`rene${tag()}`.replace('rene', 'ren\u00e9')}@example.com`;
      const made = await create({ username: `nfd2_${tag()}`, email: other.normalize('NFD') });
      expect(made.body.success).toBe(true);
      expect((await app.userRow(made.body.data.id)).email).toBe(other.normalize('NFC'));
    });

    it('a trailing zero-width space is refused, naming the field, in Chinese and in English', async () => {
      const email = `zw${tag()}@example.com`;
      expect((await create({ username: `zw_${tag()}`, email })).body.success).toBe(true);
      const zh = await create({ username: `zw_${tag()}`, email: `${email}${ZWSP}` });
      refusedOn(zh, 'email');
      expect(zh.body.message).toMatch(/[\u4e00-\u9fff]/);
      const en = await create({ username: `zw_${tag()}`, email: `${email}${ZWSP}` }, { 'accept-language': 'en' });
      refusedOn(en, 'email');
      expect(en.body.message).not.toMatch(/[\u4e00-\u9fff]/);
      expect(await usersWithEmailLike(email.split('@')[0])).toHaveLength(1);
    });

    it('a Cyrillic а among Latin letters is refused, in the local part and in the domain', async () => {
      const local = `admin${tag()}`;
      expect((await create({ username: `cy_${tag()}`, email: `${local}@example.com` })).body.success).toBe(true);
      refusedOn(
        await create({ username: `cy_${tag()}`, email: `${CYRILLIC_A}${local.slice(1)}@example.com` }),
        'email',
      );
      refusedOn(await create({ username: `cy_${tag()}`, email: `${local}@ex${CYRILLIC_A}mple.com` }), 'email');
      expect(await usersWithEmailLike(local.slice(1))).toHaveLength(1);
      // One script per part is an address like any other.
      expect(
        (await create({ username: `cy_${tag()}`, email: `\u0438\u0432\u0430\u043d${mobileOf()}@example.com` })).body
          .success,
      ).toBe(true);
    });

    it('full-width letters are the same e-mail, user name and mobile: taken', async () => {
      const existing = await createUser(app);
      takenOn(await create({ username: `fw_${tag()}`, email: fullWidthEmail(existing.email) }), 'email');
      takenOn(await create({ username: fullWidth(existing.username.toUpperCase()) }), 'username');
      takenOn(await create({ username: `fw_${tag()}`, mobile: fullWidth(existing.mobile) }), 'mobile');
      const pii = app.app.get(PiiCipher);
      const rows = (await app.db.query('SELECT id, email, mobile FROM sys_user')) as {
        email: string;
        mobile: string;
      }[];
      expect(
        rows.filter((r) => pii.reveal(r.email) === existing.email || pii.reveal(r.mobile) === existing.mobile),
      ).toHaveLength(1);
    });

    it('a bidi override is refused in an identifier and in the display name', async () => {
      refusedOn(await create({ username: `bi_${tag()}`, email: `moc.elpmaxe${RLO}@x${tag()}.com` }), 'email');
      refusedOn(await create({ username: `bi_${tag()}`, name: `Admin${RLO}nimdA` }), 'name');
      refusedOn(await create({ username: `bi_${tag()}`, name: `tab\there` }), 'name');
      refusedOn(await create({ username: `bi${RLO}_${tag()}` }), 'username');
    });
  });

  it('a new user name, mobile and e-mail given in full width are stored as their ASCII forms', async () => {
    const username = `fws_${tag()}`;
    const mobile = mobileOf();
    const res = await create({
      username: fullWidth(username),
      mobile: fullWidth(mobile),
      email: fullWidthEmail(`${username}@example.com`),
    });
    expect(res.body.success).toBe(true);
    expect(await app.userRow(res.body.data.id)).toMatchObject({ username, mobile, email: `${username}@example.com` });
  });

  it('white space inside an identifier is refused', async () => {
    refusedOn(await create({ username: `ws_${tag()}`, email: `a\u3000b${tag()}@example.com` }), 'email');
    refusedOn(await create({ username: `ws_${tag()}`, mobile: `${mobileOf()}\u00a0` }), 'mobile');
  });

  describe('logins', () => {
    it('a login by the full-width form of a user name finds the account', async () => {
      const user = await createUser(app);
      const login = await app.login(fullWidth(user.username.toUpperCase()), user.password);
      expect(login.body).toMatchObject({ success: true, code: 'OK' });
      const token = login.body.data!.accessToken;
      expect((await app.post('/sys/me/info', {}, { token })).body.data.id).toBe(user.id);
    });

    it('a login by the NFD form of an e-mail finds the account', async () => {
      const email = `${`zoe${tag()}`.replace('zoe', 'zo\u00eb')}@example.com`;
      const made = await create({ username: `nfdl_${tag()}`, email });
      const login = await app.login(email.normalize('NFD'), 'Passw0rd!x');
      expect(login.body).toMatchObject({ success: true, code: 'OK' });
      expect((await app.post('/sys/me/info', {}, { token: login.body.data!.accessToken })).body.data.id).toBe(
        made.body.data.id,
      );
    });

    it('a login with a zero-width character finds nothing: BAD_CREDENTIALS, as for any unknown account', async () => {
      const user = await createUser(app);
      const login = await app.login(`${user.username}${ZWSP}`, user.password);
      expect(login.body).toMatchObject({ success: false, code: 'BAD_CREDENTIALS' });
    });
  });

  describe('/sys/user/update', () => {
    it("refuses a zero-width e-mail, another user's e-mail in full width and a bidi override in the name", async () => {
      const user = await createUser(app);
      const other = await createUser(app);
      refusedOn(await app.admin('/sys/user/update', { id: user.id, email: `${user.email}${ZWSP}` }), 'email');
      takenOn(await app.admin('/sys/user/update', { id: user.id, email: fullWidthEmail(other.email) }), 'email');
      takenOn(await app.admin('/sys/user/update', { id: user.id, mobile: fullWidth(other.mobile) }), 'mobile');
      refusedOn(await app.admin('/sys/user/update', { id: user.id, name: `x${RLO}y` }), 'name');
      expect(await app.userRow(user.id)).toMatchObject({ email: user.email, mobile: user.mobile });
    });

    it('stores a new e-mail given in full width as its ASCII form; a login by it finds the user', async () => {
      const user = await createUser(app);
      const email = `upd${tag()}@example.com`;
      expect((await app.admin('/sys/user/update', { id: user.id, email: fullWidthEmail(email) })).body.success).toBe(
        true,
      );
      expect((await app.userRow(user.id)).email).toBe(email);
      const token = await app.token(email, user.password);
      expect((await app.post('/sys/me/info', {}, { token })).body.data.id).toBe(user.id);
    });
  });
});
