import { randomBytes } from 'node:crypto';

import { TestApp } from './test-app';

export interface TestUser {
  id: string;
  username: string;
  password: string;
  mobile: string;
  email: string;
}

let seq = 0;

/** A user created through the admin API (so with an initial password). */
export async function createUser(
  app: TestApp,
  overrides: Partial<{ username: string; password: string; roles: string[]; name: string }> = {},
): Promise<TestUser> {
  seq += 1;
  const tag = `${randomBytes(3).toString('hex')}${seq}`;
  const username = overrides.username ?? `user_${tag}`;
  const password = overrides.password ?? 'Passw0rd!x';
  const mobile = `139${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;
  const email = `${username}@example.com`;
  const res = await app.admin('/sys/user/create', {
    username,
    name: overrides.name ?? `Name ${tag}`,
    mobile,
    email,
    password: await app.encrypt(password),
    roles: overrides.roles ?? [],
  });
  if (!res.body.success) throw new Error(`create user failed: ${res.body.code} ${res.body.message}`);
  return { id: res.body.data.id, username, password, mobile, email };
}

/** A user whose password counts as changed (not initial), by changing it through the API. */
export async function createActiveUser(
  app: TestApp,
  overrides: Partial<{ username: string; roles: string[] }> = {},
): Promise<TestUser> {
  const user = await createUser(app, { ...overrides, password: 'Initial#1a' });
  const token = await app.token(user.username, 'Initial#1a');
  const newPassword = 'Changed#2b';
  const res = await app.post(
    '/sys/me/pass/update',
    {
      oldPass: await app.encrypt('Initial#1a'),
      newPass: await app.encrypt(newPassword),
    },
    { token },
  );
  if (!res.body.success) throw new Error(`password change failed: ${res.body.message}`);
  await app.post('/sys/logout', {}, { token });
  return { ...user, password: newPassword };
}

export async function createRole(app: TestApp, code: string, permissions: string[]): Promise<void> {
  const res = await app.admin('/sys/role/save', { code, name: code, permissions });
  if (!res.body.success) throw new Error(`role save failed: ${res.body.message}`);
}
