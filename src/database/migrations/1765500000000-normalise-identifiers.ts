import { Logger } from '@nestjs/common';
import { MigrationInterface, QueryRunner } from 'typeorm';

import { Identifier, IDENTIFIER_KINDS, identifiersOf, nfkc } from '../../user-account/user-identifier';

interface StoredUser {
  id: string;
  username: string;
  mobile: string | null;
  email: string | null;
}
interface StoredKey {
  value: string;
  user_id: string;
  kind: string;
}

const nfkcOrNull = (raw: string | null): string | null => (raw === null || raw === undefined ? raw : nfkc(raw));
const sameKeys = (a: Identifier[], b: StoredKey[]) =>
  a.length === b.length && a.every((i) => b.some((k) => k.value === i.value && k.kind === i.kind));

/**
 * "Identifiers are normalised": user names, mobiles and e-mails stored before the rule
 * (users deleted too: their identifiers stay taken) are brought to NFKC, and their sys_user_identifier
 * keys to the form a login now looks up. Two accounts that would then hold the same identifier cannot
 * both keep it without one losing a way in: both stay exactly as they were, and the start log names
 * them (ids and fields; the values are personal data) for an administrator to resolve.
 */
export class NormaliseIdentifiers1765500000000 implements MigrationInterface {
  name = 'NormaliseIdentifiers1765500000000';

  async up(q: QueryRunner): Promise<void> {
    const column = q.connection.driver.escape('value');
    const users: StoredUser[] = await q.query(
      'SELECT id, username, mobile, email FROM sys_user ORDER BY create_time, id',
    );
    const stored: StoredKey[] = await q.query(`SELECT ${column} AS value, user_id, kind FROM sys_user_identifier`);
    const storedOf = new Map<string, StoredKey[]>();
    for (const key of stored) storedOf.set(key.user_id, [...(storedOf.get(key.user_id) ?? []), key]);

    const next = users.map((user) => {
      const fields = { username: nfkc(user.username), mobile: nfkcOrNull(user.mobile), email: nfkcOrNull(user.email) };
      return { user, fields, keys: identifiersOf(fields) };
    });
    const holders = new Map<string, { id: string; kind: string }[]>();
    for (const { user, keys } of next) {
      for (const key of keys)
        holders.set(key.value, [...(holders.get(key.value) ?? []), { id: user.id, kind: key.kind }]);
    }
    const clashing = new Set<string>();
    const logger = new Logger('Migrations');
    for (const owners of holders.values()) {
      if (owners.length < 2) continue;
      for (const owner of owners) clashing.add(owner.id);
      logger.warn(
        `identifier clash after NFKC normalisation: ${owners.map((o) => `user ${o.id} ${o.kind}`).join(' and ')}` +
          ' hold the same value; both left unchanged, change one of them',
      );
    }

    const changed = next.filter(
      ({ user, fields, keys }) =>
        !clashing.has(user.id) &&
        (IDENTIFIER_KINDS.some((kind) => fields[kind] !== user[kind]) || !sameKeys(keys, storedOf.get(user.id) ?? [])),
    );
    // Every replaced key goes before any new one is written: a key may move from one user's stale row to another's.
    for (const { user } of changed) await q.query('DELETE FROM sys_user_identifier WHERE user_id = ?', [user.id]);
    for (const { user, fields, keys } of changed) {
      await q.query('UPDATE sys_user SET username = ?, mobile = ?, email = ? WHERE id = ?', [
        fields.username,
        fields.mobile,
        fields.email,
        user.id,
      ]);
      if (keys.length) {
        await q.query(
          `INSERT INTO sys_user_identifier (${column}, user_id, kind) VALUES ${keys.map(() => '(?, ?, ?)').join(', ')}`,
          keys.flatMap((k) => [k.value, user.id, k.kind]),
        );
      }
    }
  }

  /** NFKC loses the forms it replaced; the normalised values are valid before this migration too. */
  async down(): Promise<void> {}
}
