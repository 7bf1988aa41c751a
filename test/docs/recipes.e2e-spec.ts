import { execFile, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { sqliteMemory } from '../support/backends';
import { createActiveUser, createRole } from '../support/factories';
import { ADMIN_PASSWORD, listenOnLocalPort, startApp, TestApp } from '../support/test-app';

const run = promisify(execFile);
const RECIPES = join(__dirname, '..', '..', 'docs', 'recipes');

/** True when every command is on PATH (and `extra`, a shell test, passes). */
const has = (commands: string[], extra = 'true') =>
  spawnSync('sh', ['-c', `${commands.map((c) => `command -v ${c} >/dev/null`).join(' && ')} && ${extra}`]).status === 0;

/**
 * The login recipes of docs/api.md, each run with its own toolchain against a running service on
 * SQLite: a recipe that stops working fails here, so the page stays true. A recipe whose
 * toolchain this machine lacks is skipped with a note.
 */
const recipes: { name: string; needs: string[]; extra?: string; command: string[] }[] = [
  {
    name: 'curl + openssl',
    needs: ['bash', 'curl', 'openssl', 'jq', 'base64'],
    command: ['bash', join(RECIPES, 'login.sh')],
  },
  { name: 'Java', needs: ['java'], command: ['java', join(RECIPES, 'Login.java')] },
  {
    name: 'Python',
    needs: ['python3'],
    extra: 'python3 -c "import cryptography" 2>/dev/null',
    command: ['python3', join(RECIPES, 'login.py')],
  },
  { name: 'Go', needs: ['go'], command: ['go', 'run', join(RECIPES, 'login.go')] },
];

describe('docs/recipes: log in and call an API', () => {
  let app: TestApp;
  let url: string;

  beforeAll(async () => {
    app = await startApp(sqliteMemory);
    url = await listenOnLocalPort(app);
  });

  afterAll(async () => {
    await app?.close();
  });

  const env = () => ({ ...process.env, LPS_URL: url, LPS_ACCOUNT: 'admin', LPS_PASSWORD: ADMIN_PASSWORD });

  for (const recipe of recipes) {
    const available = has(recipe.needs, recipe.extra);
    if (!available) {
      console.log(
        `docs/recipes: ${recipe.name} skipped, its toolchain (${recipe.needs.join(', ')}) is not installed here`,
      );
    }
    // Skipped, not failed, only on a developer machine that lacks a recipe's toolchain: .ci/run
    // installs Go beside the Node, Java, Python, bash, curl and openssl CI's machine has, so in CI
    // every recipe runs.
    (available ? it : it.skip)(
      `${recipe.name}: logs in, reads /sys/me/info and logs out`,
      async () => {
        const before = await app.logRows('admin');
        const { stdout } = await run(recipe.command[0], recipe.command.slice(1), { env: env(), timeout: 110_000 });
        expect(stdout.trim()).toBe('logged in as admin');
        const after = await app.logRows('admin');
        expect(after.length).toBe(before.length + 1);
        expect(after[after.length - 1].status).toBe('success');
      },
      120_000,
    );
  }

  /** The token-check recipes: an API key of a downstream service asks about a user's token. */
  const introspectionRecipes: { name: string; needs: string[]; command: string[] }[] = [
    { name: 'curl', needs: ['bash', 'curl', 'jq'], command: ['bash', join(RECIPES, 'introspect.sh')] },
    { name: 'Java', needs: ['java'], command: ['java', join(RECIPES, 'Introspect.java')] },
    { name: 'Python', needs: ['python3'], command: ['python3', join(RECIPES, 'introspect.py')] },
  ];

  for (const recipe of introspectionRecipes) {
    const available = has(recipe.needs);
    if (!available) {
      console.log(
        `docs/recipes: ${recipe.name} introspection skipped, its toolchain (${recipe.needs.join(', ')}) is not installed here`,
      );
    }
    // Skipped, not failed, only where the recipe's toolchain is missing; CI's machine has all three.
    (available ? it : it.skip)(
      `${recipe.name}: checks a token with an API key, live and after logout`,
      async () => {
        const created = await app.admin('/sys/apiKey/create', {
          name: `recipe-${recipe.name}`,
          permissions: ['sys:token:introspect'],
        });
        expect(created.body.code).toBe('OK');
        await createRole(app, `recipe-${recipe.name}`, ['report:read', 'report:write']);
        const user = await createActiveUser(app, { roles: [`recipe-${recipe.name}`] });
        const token = await app.token(user.username, user.password, { ip: '10.0.0.7' });
        const check = () =>
          run(recipe.command[0], recipe.command.slice(1), {
            env: {
              ...process.env,
              LPS_URL: url,
              LPS_API_KEY: created.body.data.key,
              LPS_TOKEN: token,
              LPS_IP: '10.0.0.7',
            },
            timeout: 110_000,
          });
        expect((await check()).stdout.trim()).toBe(`active: ${user.username} (report:read, report:write)`);
        await app.post('/sys/logout', {}, { token });
        expect((await check()).stdout.trim()).toBe('inactive: NOT_LOGGED_IN');
      },
      120_000,
    );
  }

  // Skipped only without bash, curl or jq (CI has them): the recipe is a shell script calling those.
  (has(['bash', 'curl', 'jq']) ? it : it.skip)('the curl token check stops on a refused API key', async () => {
    const err: any = await run('bash', [join(RECIPES, 'introspect.sh')], {
      env: { ...process.env, LPS_URL: url, LPS_API_KEY: 'lps_not-a-key', LPS_TOKEN: 'whatever' },
    }).catch((e: unknown) => e);
    expect(err.code).toBe(1);
    expect(err.stderr.trim()).toBe('NOT_LOGGED_IN: Not logged in, or the session has expired');
  });

  // Skipped only without bash, curl, openssl or jq (CI has them): the ciphertext is made with openssl.
  (has(['bash', 'curl', 'openssl', 'jq']) ? it : it.skip)(
    'a ciphertext with MGF1 over SHA-1 is refused, naming password',
    async () => {
      const script = `
      curl -sS -X POST "$LPS_URL/sys/publicKey" -H 'Content-Type: application/json' -d '{}' | jq -r .data.publicKey > "$DIR/public.pem"
      cipher=$(printf '%s' "$LPS_PASSWORD" | openssl pkeyutl -encrypt -pubin -inkey "$DIR/public.pem" \\
        -pkeyopt rsa_padding_mode:oaep -pkeyopt rsa_oaep_md:sha256 -pkeyopt rsa_mgf1_md:sha1 | base64 | tr -d '\\n')
      curl -sS -X POST "$LPS_URL/sys/login" -H 'Content-Type: application/json' -H 'Accept-Language: en' \\
        -d "{\\"account\\":\\"admin\\",\\"password\\":\\"$cipher\\"}"`;
      const dir = (await run('mktemp', ['-d'])).stdout.trim();
      try {
        const { stdout } = await run('bash', ['-c', script], { env: { ...env(), DIR: dir }, timeout: 30_000 });
        const body = JSON.parse(stdout);
        expect(body).toMatchObject({ success: false, code: 'VALIDATION_FAILED' });
        expect(body.data.errors).toEqual([expect.objectContaining({ field: 'password' })]);
      } finally {
        await run('rm', ['-rf', dir]);
      }
    },
    60_000,
  );
});
