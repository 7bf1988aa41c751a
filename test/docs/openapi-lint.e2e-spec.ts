import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';

import { unwrapLoneAllOf } from '../../src/app.setup';
import { sqliteMemory } from '../support/backends';
import { startApp, TestApp } from '../support/test-app';

/*
 * The OpenAPI document the service serves at /docs-json passes Redocly's linter (its recommended
 * rules, with the exceptions and their reasons in redocly.yaml) without an error or a warning, so
 * that generators and gateways that read it take it as it is. `npm run lint:openapi` runs the same
 * linter on the committed copy (web/src/api/openapi.json).
 */

jest.setTimeout(60_000);

const ROOT = resolve(__dirname, '../..');
const CLI = join(dirname(require.resolve('@redocly/cli/package.json')), 'bin', 'cli.js');

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; message: string; location: { pointer: string }[] }[];
}

/** Redocly's report on `document`, linted with the project's redocly.yaml. */
async function lint(document: unknown): Promise<LintReport> {
  const dir = mkdtempSync(join(tmpdir(), 'lps-openapi-lint-'));
  try {
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(document));
    // Exit code 1 on errors: the report on stdout is what the test reads either way.
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [CLI, 'lint', file, '--config', join(ROOT, 'redocly.yaml'), '--format', 'json'],
      {
        cwd: ROOT,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
        maxBuffer: 16 << 20,
      },
    ).catch((error: { stdout?: string }) => {
      if (!error.stdout) throw error;
      return { stdout: error.stdout };
    });
    return JSON.parse(stdout) as LintReport;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const problemsOf = (report: LintReport) =>
  report.problems.map((p) => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`);

describe('OpenAPI document: Redocly lint', () => {
  let app: TestApp;
  let served: Record<string, any>;

  beforeAll(async () => {
    app = await startApp(sqliteMemory);
    const res = await app.app.inject({ method: 'GET', url: '/docs-json' });
    expect(res.statusCode).toBe(200);
    served = res.json();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('finds no error and no warning in the document /docs-json serves', async () => {
    const report = await lint(served);
    expect(problemsOf(report)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  });

  it('reports the shapes it was clean of (a linter that ran on nothing would pass anything)', async () => {
    const broken = structuredClone(served);
    broken.servers = [];
    const data =
      broken.paths['/sys/user/lock'].post.responses['400'].content['application/json'].schema.properties.data;
    delete data.type;
    broken.components.schemas.LoginLogRowDto.properties.status = {
      allOf: [{ $ref: '#/components/schemas/LoginStatus' }],
    };
    const report = await lint(broken);
    expect(report.totals.errors).toBe(2);
    expect(problemsOf(report)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^no-empty-servers at #\/servers:/),
        expect.stringMatching(/^nullable-type-sibling at #\/paths\/~1sys~1user~1lock\/post\/responses\/400\//),
        expect.stringMatching(
          /^no-illogical-composition-keywords at #\/components\/schemas\/LoginLogRowDto\/properties\/status\/allOf:/,
        ),
      ]),
    );
  });

  it('states the origin as its server, and a nullable VALIDATION_FAILED data with its type', () => {
    expect(served.servers).toEqual([{ url: '/', description: 'this service' }]);
    const data =
      served.paths['/sys/user/lock'].post.responses['400'].content['application/json'].schema.properties.data;
    expect(data).toEqual({
      type: 'object',
      nullable: true,
      allOf: [{ $ref: '#/components/schemas/ValidationFailedDto' }],
    });
    // A named enum is referenced directly, no longer through an allOf of one.
    expect(served.components.schemas.LoginLogRowDto.properties.status).toEqual({
      $ref: '#/components/schemas/LoginStatus',
    });
  });

  it('unwraps only an allOf of one that stands alone', () => {
    const ref = { $ref: '#/components/schemas/X' };
    expect(unwrapLoneAllOf({ a: { allOf: [ref] }, b: [{ allOf: [ref] }] })).toEqual({ a: ref, b: [ref] });
    expect(unwrapLoneAllOf({ allOf: [ref], nullable: true, type: 'object' })).toEqual({
      allOf: [ref],
      nullable: true,
      type: 'object',
    });
    expect(unwrapLoneAllOf({ allOf: [ref, { type: 'object' }] })).toEqual({ allOf: [ref, { type: 'object' }] });
  });
});
