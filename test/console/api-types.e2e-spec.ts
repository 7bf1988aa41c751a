import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

import {
  CLIENT_SCHEMA_TS,
  generateApiTypes,
  OPENAPI_JSON,
  SCHEMA_TS,
  STRATEGY_LIMITS_JSON,
} from '../../tools/api-types';

/*
 * The console's API types (web/src/api/schema.d.ts, and the OpenAPI document they come
 * from) and the Node client's copy (client/src/schema.ts) are generated from the service's DTOs and
 * committed. This regenerates them in memory and fails when a committed one is stale, i.e. when a
 * DTO or its @nestjs/swagger decorators changed without `npm run api:types`.
 */

jest.setTimeout(60_000);

const ROOT = `${__dirname}/../..`;

/** The first line where two texts part, with a little context, for the failure message. */
function firstDifference(committed: string, generated: string): string {
  const a = committed.split('\n');
  const b = generated.split('\n');
  const i = a.findIndex((line, n) => line !== b[n]);
  const at = i === -1 ? Math.min(a.length, b.length) : i;
  return `first difference at line ${at + 1}:\n  committed: ${JSON.stringify(a[at] ?? '(end of file)')}\n  generated: ${JSON.stringify(b[at] ?? '(end of file)')}`;
}

describe('console API types generated from the OpenAPI document', () => {
  let generated: Awaited<ReturnType<typeof generateApiTypes>>;

  beforeAll(async () => {
    generated = await generateApiTypes();
  });

  it.each([
    ['the OpenAPI document', OPENAPI_JSON, 'json'],
    ['the TypeScript types', SCHEMA_TS, 'types'],
    ["the Node client's TypeScript types", CLIENT_SCHEMA_TS, 'clientTypes'],
    ["the strategy fields' ranges and defaults", STRATEGY_LIMITS_JSON, 'limits'],
  ] as const)('%s are what the service generates now', (_what, file, key) => {
    const committed = readFileSync(file, 'utf8');
    if (committed !== generated[key]) {
      throw new Error(
        `${relative(ROOT, file)} has drifted from the service's OpenAPI document: run \`npm run api:types\` ` +
          `and commit the result.\n${firstDifference(committed, generated[key])}`,
      );
    }
  });

  it("the types describe the data the console reads, inside the API's envelope", () => {
    const document = JSON.parse(generated.json);
    const login = document.paths['/sys/login'].post.responses['200'].content['application/json'].schema;
    expect(login.required).toEqual(['success', 'code', 'message', 'data']);
    expect(login.properties.data).toEqual({ $ref: '#/components/schemas/LoginResultDto' });
    const users = document.paths['/sys/user/list'].post.responses['200'].content['application/json'].schema;
    expect(users.properties.data.properties.rows.items).toEqual({ $ref: '#/components/schemas/UserRowDto' });
    for (const name of [
      'LoginResultDto',
      'MeInfoDto',
      'UserRowDto',
      'LoginStrategyDto',
      'UserStrategyDto',
      'SessionRowDto'.replace('Session', 'OnlineSession'),
    ]) {
      expect(generated.types).toMatch(new RegExp(`^ {8}${name}: \\{$`, 'm'));
    }
  });
});
