import { type FieldDef, LOGIN_FIELDS, USER_FIELDS } from './strategy-fields';

export type Group = 'login' | 'user';

/** One field the baseline changes: its group, definition, the value saved now and the baseline's. */
export interface BaselineChange {
  group: Group;
  field: FieldDef;
  from: unknown;
  to: unknown;
}

const FIELDS: Record<Group, FieldDef[]> = { login: LOGIN_FIELDS, user: USER_FIELDS };

/**
 * The fields whose saved value differs from the baseline, in the order of the strategy page.
 * `current` holds the values the service answered (a field it does not report is undefined: it changes).
 */
export function baselineChanges(
  current: Record<Group, Record<string, unknown>>,
  baseline: Record<Group, Record<string, unknown>>,
  groups: Group[] = ['login', 'user'],
): BaselineChange[] {
  const changes: BaselineChange[] = [];
  for (const group of groups) {
    const target = baseline[group];
    for (const field of FIELDS[group]) {
      if (!(field.key in target)) continue;
      const from = current[group][field.key];
      const to = target[field.key];
      if (from !== to) changes.push({ group, field, from, to });
    }
  }
  return changes;
}
