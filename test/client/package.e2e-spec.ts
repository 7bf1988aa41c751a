import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { ERROR_CODES, GUARD_REFUSALS } from '../../client/src';
import { ErrorCode, HTTP_STATUS, messageOf } from '../../src/common/error-code';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');
const CLIENT = join(ROOT, 'client');

/**
 * The client as a downstream service gets it: built by its own tsconfig with the root's TypeScript,
 * installed as node_modules/@lps/client in a project of its own (no other package around it), then
 * loaded by require, by import and by the TypeScript compiler.
 */
describe('the @lps/client package', () => {
  let project: string;

  beforeAll(async () => {
    project = mkdtempSync(join(tmpdir(), 'lps-client-'));
    const installed = join(project, 'node_modules', '@lps', 'client');
    mkdirSync(installed, { recursive: true });
    await run(
      process.execPath,
      [
        join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
        '-p',
        join(CLIENT, 'tsconfig.json'),
        '--outDir',
        join(installed, 'dist'),
      ],
      { cwd: ROOT, timeout: 120_000 },
    );
    cpSync(join(CLIENT, 'package.json'), join(installed, 'package.json'));
    cpSync(join(CLIENT, 'README.md'), join(installed, 'README.md'));
  }, 150_000);

  afterAll(() => rmSync(project, { recursive: true, force: true }));

  const node = (args: string[]) => run(process.execPath, args, { cwd: project, timeout: 30_000 });
  const EXPORTS = [
    'LoginPolicyClient',
    'LoginPolicyError',
    'PermissionGuard',
    'callerOf',
    'encryptPassword',
    'tokenOf',
  ];

  it('loads with require(), with no dependency installed beside it', async () => {
    const { stdout } = await node([
      '-e',
      `const c = require('@lps/client'); console.log(JSON.stringify(Object.keys(c).sort()))`,
    ]);
    expect(JSON.parse(stdout)).toEqual(expect.arrayContaining(EXPORTS));
  });

  it('loads with import from an ES module, and encrypts with the named export', async () => {
    const script = `
      import { encryptPassword, LoginPolicyClient } from '@lps/client';
      import { generateKeyPairSync } from 'node:crypto';
      const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const cipher = encryptPassword(publicKey.export({ type: 'spki', format: 'pem' }), 'x');
      console.log(typeof LoginPolicyClient, Buffer.from(cipher, 'base64').length);`;
    const { stdout } = await node(['--input-type=module', '-e', script]);
    expect(stdout.trim()).toBe('function 256');
  });

  it('type-checks a downstream TypeScript file against its declarations', async () => {
    writeFileSync(
      join(project, 'use.ts'),
      `import { callerOf, LoginPolicyClient, LoginPolicyError, type LoginResult } from '@lps/client';
      const lps = new LoginPolicyClient({ baseUrl: 'http://lps:3000', apiKey: 'lps_x' });
      export async function token(): Promise<string | null> {
        try {
          const result: LoginResult = await lps.login({ username: 'a', password: 'b' });
          return result.mfaRequired ? result.mfaToken : result.accessToken;
        } catch (err) {
          if (err instanceof LoginPolicyError && err.code === 'BAD_CREDENTIALS') return null;
          throw err;
        }
      }
      export const who = (req: object): string | undefined => callerOf(req)?.username;
      // @ts-expect-error the captcha needs both fields
      lps.login({ username: 'a', password: 'b', captcha: { imgId: 'i' } });`,
    );
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          strict: true,
          noEmit: true,
          types: ['node'],
          typeRoots: [join(ROOT, 'node_modules', '@types')],
        },
        files: ['use.ts'],
      }),
    );
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    await expect(node([tsc, '-p', 'tsconfig.json'])).resolves.toMatchObject({ stderr: '' });
  }, 60_000);

  it('ships only its build, its README and its package.json', () => {
    const pkg = JSON.parse(readFileSync(join(CLIENT, 'package.json'), 'utf8'));
    expect(pkg.files).toEqual(['dist', 'README.md']);
    expect(pkg.dependencies).toBeUndefined();
    expect(pkg.peerDependenciesMeta['@nestjs/common'].optional).toBe(true);
  });
});

describe("the client's codes and texts are the service's", () => {
  it('knows every error code the service answers', () => {
    expect([...ERROR_CODES].sort()).toEqual(
      Object.values(ErrorCode)
        .filter((c) => c !== ErrorCode.OK)
        .sort(),
    );
  });

  it.each(Object.keys(GUARD_REFUSALS) as (keyof typeof GUARD_REFUSALS)[])(
    '%s: the same status and the same zh and en texts',
    (code) => {
      const ours = GUARD_REFUSALS[code];
      expect({ status: ours.status, zh: ours.zh, en: ours.en }).toEqual({
        status: HTTP_STATUS[ErrorCode[code]],
        zh: messageOf(ErrorCode[code], 'zh'),
        en: messageOf(ErrorCode[code], 'en'),
      });
    },
  );
});
