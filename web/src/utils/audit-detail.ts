/**
 * An audit row's detail as people read it. The service records what an action changed as
 * `{ old: {...}, new: {...} }` (same keys; `old` null when the action created the thing) beside other
 * facts (`username`, `reason`…); a few actions wrote other shapes before, which still read:
 * `{ old: [...], new: [...] }` (a role's codes), `{ changes: { field: { old, new } } }` and
 * `{ field: { old, new } }`.
 */
export interface ChangeRow {
  field: string;
  old: unknown;
  new: unknown;
}

export interface DetailView {
  changes: ChangeRow[];
  /** True when the action created the thing (`old` null): the old column says so. */
  created: boolean;
  facts: [string, unknown][];
}

const isPlain = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const isChange = (v: unknown): v is { old: unknown; new: unknown } =>
  isPlain(v) && 'old' in v && 'new' in v && Object.keys(v).length === 2;

export function detailView(detail: unknown): DetailView {
  const view: DetailView = { changes: [], created: false, facts: [] };
  if (!isPlain(detail)) {
    if (detail !== null && detail !== undefined) view.facts.push(['', detail]);
    return view;
  }
  const rest: Record<string, unknown> = { ...detail };
  if ('old' in detail || 'new' in detail) {
    const { old: before, new: after } = detail;
    delete rest.old;
    delete rest.new;
    view.created = before === null || before === undefined;
    if ((isPlain(before) || view.created) && isPlain(after)) {
      const keys = [...new Set([...Object.keys(before ?? {}), ...Object.keys(after)])];
      for (const key of keys)
        view.changes.push({ field: key, old: (before as Record<string, unknown> | null)?.[key], new: after[key] });
    } else {
      view.changes.push({ field: '', old: before, new: after });
    }
  }
  if (isPlain(rest.changes)) {
    for (const [key, value] of Object.entries(rest.changes)) {
      if (isChange(value)) view.changes.push({ field: key, old: value.old, new: value.new });
    }
    delete rest.changes;
  }
  for (const [key, value] of Object.entries(rest)) {
    if (isChange(value)) view.changes.push({ field: key, old: value.old, new: value.new });
    else view.facts.push([key, value]);
  }
  // Only what changed: a field whose value is the same before and after (rows that recorded a whole
  // object) says nothing. A creation lists every field.
  if (!view.created) view.changes = view.changes.filter((c) => !sameValue(c.old, c.new));
  return view;
}

const sameValue = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** One value of a detail as text; times through `formatTime`. */
export function detailValue(
  value: unknown,
  labels: { yes: string; no: string; empty: string },
  formatTime: (v: string) => string,
): string {
  if (value === null || value === undefined || value === '') return labels.empty;
  if (typeof value === 'boolean') return value ? labels.yes : labels.no;
  if (typeof value === 'string') return ISO_TIME.test(value) ? formatTime(value) : value;
  if (Array.isArray(value))
    return value.length ? value.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ') : labels.empty;
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}
