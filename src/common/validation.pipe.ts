import { ArgumentMetadata, Injectable, ValidationError, ValidationPipe } from '@nestjs/common';
import { validationFailed } from './app.exception';

// When a value breaks several rules, name the most basic one ("must be a string" before "too long").
const PRIORITY = ['whitelistValidation', 'isDefined', 'isString', 'isInt', 'isBoolean', 'isArray', 'isIn', 'isDateString'];
const rank = (name: string) => (PRIORITY.includes(name) ? PRIORITY.indexOf(name) : PRIORITY.length);

function firstProblem(errors: ValidationError[], parent = ''): { field: string; rule: string } {
  for (const error of errors) {
    const field = parent ? `${parent}.${error.property}` : error.property;
    if (error.constraints) {
      const [name, text] = Object.entries(error.constraints).sort(([a], [b]) => rank(a) - rank(b))[0];
      return { field, rule: name === 'whitelistValidation' ? `${field} is not an accepted field` : text };
    }
    if (error.children?.length) return firstProblem(error.children, field);
  }
  return { field: 'body', rule: 'the request body must be a JSON object' };
}

/**
 * Strict body validation: unknown fields and wrong types are refused with
 * VALIDATION_FAILED naming the field and the rule; an absent body counts as {}.
 */
@Injectable()
export class BodyValidationPipe extends ValidationPipe {
  constructor() {
    super({
      whitelist: true,
      forbidNonWhitelisted: true,
      forbidUnknownValues: true,
      transform: true,
      validationError: { target: false, value: false },
      exceptionFactory: (errors) => {
        const { field, rule } = firstProblem(errors);
        return validationFailed(`参数${field}不合法: ${rule}`, `Invalid ${field}: ${rule}`);
      },
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body') {
      if (value === undefined || value === null) value = {};
      if (typeof value !== 'object' || Array.isArray(value)) {
        throw validationFailed('请求体必须是JSON对象', 'The request body must be a JSON object');
      }
    }
    return super.transform(value, metadata);
  }
}
