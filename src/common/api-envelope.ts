import { applyDecorators, Type } from '@nestjs/common';
import {
  ApiExtraModels,
  ApiOkResponse,
  ApiProperty,
  ApiPropertyOptional,
  getSchemaPath,
  OpenAPIObject,
} from '@nestjs/swagger';

/**
 * OpenAPI only: the 200 answer of an operation is the API's envelope around `data` of
 * `model` — one object, an array of them, or a page `{ total, rows }`. The console's API types are
 * generated from these (npm run api:types); nothing here changes what the operation answers.
 */
export function ApiEnvelope(model: Type<unknown>, shape: 'object' | 'array' | 'page' = 'object', description = '') {
  const ref = { $ref: getSchemaPath(model) };
  const data =
    shape === 'array'
      ? { type: 'array', items: ref }
      : shape === 'page'
        ? {
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

/** OpenAPI only: one refused input field of a VALIDATION_FAILED answer. */
export class FieldErrorDto {
  @ApiPropertyOptional({ description: 'the sheet row of /sys/user/import (the header is row 1); absent elsewhere' })
  row?: number;
  @ApiProperty({ description: "the input's name as sent (`body` when the body as a whole is refused)" }) field: string;
  @ApiProperty({ description: "names the field and the rule, in the caller's language" }) message: string;
}

/** OpenAPI only: `data` of a VALIDATION_FAILED answer. */
export class ValidationFailedDto {
  @ApiProperty({ type: [FieldErrorDto] }) errors: FieldErrorDto[];
}

/** The 400 answer every POST operation may give: VALIDATION_FAILED naming the refused fields. */
export function addValidationFailedResponses(document: OpenAPIObject): void {
  const response = {
    description:
      'VALIDATION_FAILED with data.errors naming the refused fields; the other 400 codes ' +
      '(CAPTCHA_INVALID, OLD_PASSWORD_WRONG, PASSWORD_*, QRCODE_INVALID) carry data: null',
    content: {
      'application/json': {
        schema: {
          type: 'object',
          required: ['success', 'code', 'message', 'data'],
          properties: {
            success: { type: 'boolean', enum: [false] },
            code: { type: 'string', example: 'VALIDATION_FAILED' },
            message: { type: 'string' },
            data: { type: 'object', nullable: true, allOf: [{ $ref: getSchemaPath(ValidationFailedDto) }] },
          },
        },
      },
    },
  };
  for (const item of Object.values(document.paths)) {
    if (item.post) item.post.responses['400'] ??= response;
  }
}
