import { parse } from 'node:querystring';

import { Transform } from 'class-transformer';

/**
 * Form-encoded bodies (older admin front ends) carry every value as text. The parser
 * marks such bodies so that typed DTO fields accept "true"/"30" there, while a JSON body
 * keeps strict types ("30" for an integer stays a validation error).
 */
export const FORM_BODY = Symbol('formBody');

export function parseFormBody(text: string): Record<string, unknown> {
  const parsed = parse(text);
  const body: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(parsed)) body[key] = value;
  Object.defineProperty(body, FORM_BODY, { value: true, enumerable: false });
  return body;
}

const fromForm = (obj: unknown) =>
  !!obj && typeof obj === 'object' && (obj as Record<symbol, unknown>)[FORM_BODY] === true;

export const FormInt = () =>
  Transform(({ value, obj }) =>
    fromForm(obj) && typeof value === 'string' && /^-?\d{1,15}$/.test(value.trim()) ? Number(value.trim()) : value,
  );

export const FormBool = () =>
  Transform(({ value, obj }) => {
    if (!fromForm(obj) || typeof value !== 'string') return value;
    const v = value.trim().toLowerCase();
    return v === 'true' || v === '1' ? true : v === 'false' || v === '0' ? false : value;
  });

export const FormArray = () =>
  Transform(({ value, obj }) => (fromForm(obj) && typeof value === 'string' ? (value === '' ? [] : [value]) : value));
