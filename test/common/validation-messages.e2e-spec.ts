import { getMetadataStorage } from 'class-validator';

import { fieldLabel } from '../../src/common/texts';
import { BACKENDS } from '../support/backends';
import { startApp, TestApp } from '../support/test-app';

/*
 * Every VALIDATION_FAILED a form can meet, read by people: for each operation of the OpenAPI
 * document (/docs-json) and each body field with a type or constraints, a value that breaks each
 * of them. The zh answer (Accept-Language: zh-CN) names the field by its label, never by its input
 * name, and carries no English sentence; the en answer is English with the label. `code` and
 * `data.errors[].field` keep the names clients are written against (docs/api.md).
 */

jest.setTimeout(300_000);

type Schema = Record<string, any>;
type ValidationMetadata = ReturnType<ReturnType<typeof getMetadataStorage>['getTargetValidationMetadatas']>[number];
interface Case {
  path: string;
  scope: string;
  field: string;
  why: string;
  value: unknown;
}

/** Three ASCII words in a row: an English sentence (formats such as HH:mm or a URL are not). */
const ENGLISH = /[A-Za-z]{2,}[ ,]+[A-Za-z]{2,}[ ,]+[A-Za-z]{2,}/;

function resolveRef(doc: Schema, schema: Schema): { name: string; schema: Schema } | null {
  const ref: string | undefined = schema?.$ref ?? schema?.allOf?.find((s: Schema) => s.$ref)?.$ref;
  if (!ref) return null;
  const name = ref.split('/').pop()!;
  return { name, schema: doc.components.schemas[name] };
}

/** Every input class that has rules, by name (the document names a body by its class). */
type InputClass = new (...args: never[]) => object;
function inputClasses(): Map<string, InputClass> {
  const byTarget = (getMetadataStorage() as unknown as { validationMetadatas: Map<InputClass, unknown> })
    .validationMetadatas;
  return new Map([...byTarget.keys()].filter((t) => typeof t === 'function').map((t) => [t.name, t]));
}

/** A value that breaks one rule of a property, from the rule's own declared values; null when none can be made. */
function breaking(m: ValidationMetadata): [string, unknown] | null {
  const [n] = m.constraints ?? [];
  const each = (v: unknown) => (m.each ? [v] : v);
  switch (m.name) {
    case 'isString':
      return ['not a string', each(12345)];
    case 'isInt':
      return ['not whole', each(1.5)];
    case 'isBoolean':
      return ['not a boolean', 'perhaps'];
    case 'isArray':
      return ['not a list', 'text'];
    case 'isObject':
      return ['not an object', 'text'];
    case 'maxLength':
      return ['too long', each('a'.repeat(n + 1))];
    case 'minLength':
      return ['too short', each('a'.repeat(Math.max(0, n - 1)))];
    case 'min':
      return ['below the minimum', n - 1];
    case 'max':
      return ['above the maximum', n + 1];
    case 'isIn':
      return ['not one of the values', each(typeof n[0] === 'number' ? 99 : 'no-such-value')];
    case 'arrayMaxSize':
      return ['too many entries', Array.from({ length: n + 1 }, (_v, i) => `x${i}`)];
    case 'arrayMinSize':
      return ['too few entries', []];
    case 'matches':
    case 'isEmail':
      return ['not in the format', each('\u0000!')];
    default:
      return null;
  }
}

function cases(doc: Schema): Case[] {
  const classes = inputClasses();
  const found: Case[] = [];
  for (const [path, ops] of Object.entries<Schema>(doc.paths)) {
    const body = ops.post?.requestBody?.content?.['application/json']?.schema;
    const resolved = body && resolveRef(doc, body);
    const target = resolved && classes.get(resolved.name);
    if (!target) continue;
    const rules = getMetadataStorage().getTargetValidationMetadatas(target, '', true, false);
    for (const m of rules) {
      const broken = breaking(m);
      if (broken) found.push({ path, scope: resolved.name, field: m.propertyName, why: broken[0], value: broken[1] });
    }
  }
  return found;
}

describe.each(BACKENDS)('validation messages people read ($name)', (backend) => {
  let app: TestApp;
  let token: string;
  let all: Case[];

  beforeAll(async () => {
    app = await startApp(backend);
    token = await app.adminToken();
    all = cases((await app.app.inject({ method: 'GET', url: '/docs-json' })).json());
  });
  afterAll(() => app?.close());

  it('finds the constrained fields of the document', () => {
    expect(all.length).toBeGreaterThan(200);
    expect(all).toContainEqual(expect.objectContaining({ path: '/sys/user/create', field: 'name', why: 'too long' }));
    expect(all).toContainEqual(
      expect.objectContaining({ path: '/sys/strategy/login/save', field: 'maxFailureTimes', why: 'below the minimum' }),
    );
  });

  it('every refused field is named by its label, in Chinese for zh-CN and in English for en', async () => {
    const problems: string[] = [];
    let checked = 0;
    for (const [i, c] of all.entries()) {
      const ip = `10.${100 + (i >> 8)}.${i & 255}.7`;
      const send = (language: string) =>
        app.post(c.path, { [c.field]: c.value }, { token, ip, headers: { 'accept-language': language } });
      const zh = await send('zh-CN,zh;q=0.9');
      if (zh.body.code !== 'VALIDATION_FAILED') continue;
      const mine = (zh.body.data as any).errors.find(
        (e: any) => e.field === c.field || e.field.startsWith(`${c.field}.`),
      );
      if (!mine) continue;
      checked++;
      const en = await send('en-US,en;q=0.9');
      const enMine = (en.body.data as any).errors.find((e: any) => e.field === mine.field);
      const name = `${c.path} ${c.field} (${c.why})`;
      const zhLabel = fieldLabel(mine.field, 'zh', c.scope);
      const enLabel = fieldLabel(mine.field, 'en', c.scope);
      // Every entry of the answer, not only the field of this case (a missing required field too).
      for (const e of (zh.body.data as any).errors) {
        if (new RegExp(`(^|[^A-Za-z])${e.field.split('.')[0]}([^A-Za-z]|$)`).test(e.message))
          problems.push(`${name}: zh names ${e.field}: ${e.message}`);
        if (ENGLISH.test(e.message)) problems.push(`${name}: zh has English: ${e.message}`);
      }
      if (!mine.message.includes(zhLabel)) problems.push(`${name}: zh lacks the label ${zhLabel}: ${mine.message}`);
      if (zh.body.message !== (zh.body.data as any).errors[0].message)
        problems.push(`${name}: the message is not the first field's`);
      if (!enMine?.message.toLowerCase().includes(enLabel.toLowerCase()))
        problems.push(`${name}: en lacks the label ${enLabel}: ${enMine?.message}`);
      if (/[\u3400-\u9fff]/.test(enMine?.message ?? '')) problems.push(`${name}: en has Chinese: ${enMine.message}`);
    }
    expect(problems).toEqual([]);
    // Most cases reach the field's own rule (a few values are accepted: 'abc' is a valid keyword).
    expect(checked).toBeGreaterThan(all.length * 0.7);
  });
});
