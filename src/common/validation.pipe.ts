import { ArgumentMetadata, Injectable, ValidationError, ValidationPipe } from '@nestjs/common';
import { getMetadataStorage } from 'class-validator';

import { AppException, FieldProblem, fieldProblem, validationFailed } from './app.exception';
import { ErrorCode } from './error-code';
import { type Bilingual, type Locale, type TextKey, type TextParams, TEXTS } from './texts';

/**
 * A validator message `text:<key>` names an entry of the text catalogue (texts.ts). Any other rule is
 * worded by the catalogue's `rule` group from its constraint name and values, never by class-validator's
 * English; the field is named by its label (`field` group) in the caller's language.
 */
export const TEXT_RULE = 'text:';
export const textRule = (key: TextKey) => `${TEXT_RULE}${key}`;

// When a value breaks several rules, name the most basic one ("must be a string" before "too long";
// an invisible character before the format rule it also breaks, which would not show why).
const PRIORITY = [
  'whitelistValidation',
  'isDefined',
  'isString',
  'identifierCharacters',
  'nameCharacters',
  'isInt',
  'isBoolean',
  'isArray',
  'isIn',
  'isDateString',
];
const rank = (name: string) => (PRIORITY.includes(name) ? PRIORITY.indexOf(name) : PRIORITY.length);

interface Broken {
  field: string;
  /** The constraint name (`maxLength`), or `whitelistValidation` for an unknown field. */
  name: string;
  message: string;
  /** The input's class and the object validated, for the constraint's values and the label. */
  target?: object;
  property: string;
}

/** The most basic broken rule of one field (or of its first nested field), or null when none is named. */
function problemOf(error: ValidationError, parent = ''): Broken | null {
  const field = parent ? `${parent}.${error.property}` : error.property;
  if (error.constraints) {
    const [name, message] = Object.entries(error.constraints).sort(([a], [b]) => rank(a) - rank(b))[0];
    return { field, name, message, target: error.target, property: error.property };
  }
  for (const child of error.children ?? []) {
    const found = problemOf(child, field);
    if (found) return found;
  }
  return null;
}

/** The values the rule was declared with (`MaxLength(64)` → [64]). */
function constraintValues(target: object | undefined, property: string, name: string): unknown[] {
  if (!target) return [];
  const found = getMetadataStorage()
    .getTargetValidationMetadatas(target.constructor, '', true, false)
    .find((m) => m.propertyName === property && m.name === name);
  return found?.constraints ?? [];
}

const RULES: Record<string, unknown> = TEXTS.rule;
const FORMATS: Record<string, unknown> = TEXTS.fieldFormat;

/** Codes whose labels exports already have (`exportLabel.status_success`), by field. */
const VALUE_LABELS: Record<string, string> = {
  status: 'status_',
  loginType: 'type_',
  state: 'state_',
  mfaChannels: 'channel_',
};
const EXPORT_LABELS: Record<string, Bilingual> = TEXTS.exportLabel;

/** The values of an `isIn` rule as people read them: Chinese labels where there are, codes in English. */
function valuesIn(property: string, values: unknown[], locale: Locale): string {
  const prefix = VALUE_LABELS[property];
  if (locale === 'en' || !prefix) return values.map(String).join(', ');
  return values.map((v) => EXPORT_LABELS[`${prefix}${String(v)}`]?.zh ?? String(v)).join('、');
}

interface Wording {
  key: TextKey;
  params: TextParams;
  /** Values that read differently in each language. */
  byLocale?: Record<Locale, TextParams>;
}

/** The catalogue entry and its values for one broken rule. */
function wordingOf({ field, name, message, target, property }: Broken): Wording {
  if (message.startsWith(TEXT_RULE)) return { key: message.slice(TEXT_RULE.length) as TextKey, params: { field } };
  if (name === 'whitelistValidation') return { key: 'rule.unknownField', params: { field } };
  const scope = target?.constructor.name;
  if (name === 'matches') {
    const format = [`${scope}.${property}`, property].find((k) => k in FORMATS);
    if (format) return { key: `fieldFormat.${format}` as TextKey, params: {} };
  }
  const [value] = constraintValues(target, property, name);
  // "At least 1 character" is what people call required.
  if (name === 'minLength' && value === 1) return { key: 'rule.isDefined', params: {} };
  const params: TextParams = {};
  if (['min', 'minLength', 'arrayMinSize'].includes(name)) params.min = Number(value);
  if (['max', 'maxLength', 'arrayMaxSize'].includes(name)) params.max = Number(value);
  const key = name in RULES ? (`rule.${name}` as TextKey) : 'rule.other';
  if (name === 'isIn' || name === 'isEnum') {
    const values: unknown[] = Array.isArray(value) ? value : Object.values(value ?? {});
    return {
      key,
      params,
      byLocale: { zh: { values: valuesIn(property, values, 'zh') }, en: { values: valuesIn(property, values, 'en') } },
    };
  }
  return { key, params };
}

/** One entry per refused field; the message names the first. */
function problemsOf(errors: ValidationError[], scope?: string): FieldProblem[] {
  const found = errors.map((e) => problemOf(e)).filter((p): p is Broken => p !== null);
  if (!found.length) return [fieldProblem('rule.notJsonObject', 'body')];
  return found.map((broken) => {
    const { key, params, byLocale } = wordingOf(broken);
    const problem = fieldProblem(key, broken.field, params, scope);
    if (!byLocale) return problem;
    const zh = fieldProblem(key, broken.field, { ...params, ...byLocale.zh }, scope);
    const en = fieldProblem(key, broken.field, { ...params, ...byLocale.en }, scope);
    return { ...problem, zh: zh.zh, en: en.en };
  });
}

const isEmptyPlainObject = (value: unknown) =>
  typeof value === 'object' &&
  value !== null &&
  Object.getPrototypeOf(value) === Object.prototype &&
  Object.keys(value).length === 0;

const INHERITED_KEYS = new Set([...Object.getOwnPropertyNames(Object.prototype), '__proto__']);

/** The body of an operation without input (`{}`): every field in it is an unknown field. */
export class NoInputDto {}

// No DTO nests deeper than a few levels; class-transformer recurses and would overflow the stack on deeper input.
const MAX_BODY_DEPTH = 32;
// Half of a UTF-16 surrogate pair on its own: not Unicode text (storage would mangle it, validators throw on it).
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** What must be refused before class-transformer and the validators see the body; messages name the top-level field. */
function structuralProblem(body: object): AppException | undefined {
  const pending: [unknown, number, string][] = [[body, 1, 'body']];
  while (pending.length) {
    const [node, depth, field] = pending.pop()!;
    if (typeof node === 'string') {
      if (LONE_SURROGATE.test(node)) return illFormed(field);
    } else if (node !== null && typeof node === 'object') {
      if (depth > MAX_BODY_DEPTH) return validationFailed('validation.nestedTooDeep');
      for (const [key, child] of Object.entries(node)) {
        const at = depth === 1 ? key : field;
        // The key itself is not echoed: it is the ill-formed text.
        if (LONE_SURROGATE.test(key)) return illFormed(field);
        pending.push([child, depth + 1, at]);
      }
    }
  }
  return undefined;
}

const illFormed = (field: string) => validationFailed('validation.notUnicode', field);

const unknownField = (field: string) => validationFailed('rule.unknownField', field);

/**
 * Strict body validation: unknown fields and wrong types are refused with
 * VALIDATION_FAILED naming the field and the rule; an absent body counts as {},
 * and a body that is not a JSON object (null included) is refused naming `body`.
 */
@Injectable()
export class BodyValidationPipe extends ValidationPipe {
  constructor() {
    super({
      whitelist: true,
      forbidNonWhitelisted: true,
      forbidUnknownValues: true,
      transform: true,
      // The target names the input's class (labels, the rules' values); answers never carry it.
      validationError: { target: true, value: false },
      exceptionFactory: (errors) => {
        const problems = problemsOf(errors, errors[0]?.target?.constructor.name);
        return new AppException(
          ErrorCode.VALIDATION_FAILED,
          undefined,
          { zh: problems[0].zh, en: problems[0].en },
          problems,
        );
      },
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    // Parameters of custom decorators (@CurrentAuth) are the service's own values, never validated
    // (ValidationPipe's own rule, without its call); an operation without input sent `{}` or nothing.
    if (metadata.type === 'custom') return value;
    if (metadata.type !== 'body') return super.transform(value, metadata);
    if (metadata.metatype === NoInputDto) {
      checkNoInput(value);
      return {};
    }
    const body = checkedBody(value);
    // Keys as sent: ValidationPipe deletes `prototype` and friends from the body, and class-transformer
    // skips others, before the whitelist check could see them. Unknown all the same.
    const sent = Object.keys(body);
    const result = await super.transform(body, metadata);
    if (sent.length && result && typeof result === 'object') {
      const dropped = sent.find((key) => !Object.prototype.hasOwnProperty.call(result, key));
      if (dropped !== undefined) throw unknownField(dropped);
    }
    return result;
  }
}

/**
 * What every body passes before its DTO's rules: no body at all (or an empty one, see app.setup.ts)
 * is `{}`; JSON `null` is a body, and not an object: refused like an array or a string, on every
 * operation; then the keys no DTO has and the structure (depth, text).
 */
function checkedBody(value: unknown): object {
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw validationFailed('validation.notJsonObject');
  }
  // class-transformer skips keys that name what every object inherits (constructor, __proto__,
  // valueOf, toString, ...), so whitelisting would never see them. No DTO has such a field.
  const hidden = Object.keys(value).find((key) => INHERITED_KEYS.has(key));
  if (hidden) throw unknownField(hidden);
  const problem = structuralProblem(value);
  if (problem) throw problem;
  return value;
}

/**
 * The body of an operation without input, refused as BodyValidationPipe refuses a NoInputDto body
 * (every field in it is unknown). Synchronous, for a handler that reads its request itself rather
 * than through Nest's parameter pipes (see MeController.info).
 */
export function checkNoInput(value: unknown): void {
  if (value === undefined || isEmptyPlainObject(value)) return;
  const [field] = Object.keys(checkedBody(value));
  if (field !== undefined) throw unknownField(field);
}
