import { applyDecorators, Type } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, getSchemaPath } from '@nestjs/swagger';

/**
 * OpenAPI only: the 200 answer of an operation is the contract's envelope (§2) around `data` of
 * `model` — one object, an array of them, or a page `{ total, rows }`. The console's API types are
 * generated from these (npm run api:types); nothing here changes what the operation answers.
 */
export function ApiEnvelope(model: Type<unknown>, shape: 'object' | 'array' | 'page' = 'object', description = '') {
  const ref = { $ref: getSchemaPath(model) };
  const data = shape === 'array' ? { type: 'array', items: ref }
    : shape === 'page' ? {
      type: 'object',
      required: ['total', 'rows'],
      properties: { total: { type: 'integer' }, rows: { type: 'array', items: ref } },
    }
    : ref;
  return applyDecorators(
    ApiExtraModels(model),
    ApiOkResponse({
      description,
      schema: {
        type: 'object',
        required: ['success', 'code', 'message', 'data'],
        properties: {
          success: { type: 'boolean' },
          code: { type: 'string' },
          message: { type: 'string' },
          data,
        },
      },
    }),
  );
}
