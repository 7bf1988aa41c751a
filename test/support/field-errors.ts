import { fieldLabel } from '../../src/common/texts';

/**
 * A VALIDATION_FAILED answer carries `data: { errors: [{ field, message }] }`, one entry
 * per refused field; every other failure keeps `data: null`.
 */
export function fieldErrorsOk(data: unknown, field?: string): boolean {
  const errors = (data as { errors?: unknown } | null)?.errors;
  if (!Array.isArray(errors) || !errors.length) return false;
  // A field may be named '' when the client sent a key '' (the input's name, as sent).
  const wellFormed = errors.every(
    (e) =>
      e &&
      typeof e.field === 'string' &&
      typeof e.message === 'string' &&
      e.message !== '' &&
      Object.keys(e).length === 2,
  );
  return wellFormed && (field === undefined || errors.some((e) => e.field === field));
}

/** For toEqual / toMatchObject: `data` of a VALIDATION_FAILED answer that names `fields` (in that order). */
export const namesFields = (...fields: string[]) => ({
  errors: fields.map((field) => ({ field, message: expect.any(String) })),
});

/** Whether `message` names `field` by one of its labels (either language; a user's or a role's field). */
export const namesLabel = (message: string, field: string) =>
  (['zh', 'en'] as const).some((locale) =>
    [undefined, 'CreateUserDto', 'UpdateUserDto', 'SaveRoleDto'].some((scope) =>
      message.includes(fieldLabel(field, locale, scope)),
    ),
  );
