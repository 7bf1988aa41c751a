import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

import { CONTROLS, OUTSIDE } from '../../src/compliance/controls';

/**
 * The READMEs' 等保三级 checklist and the service's table of controls (src/compliance/controls.ts,
 * which the baseline dialog shows) name the same controls under the same clauses: a control added or
 * moved to another clause in one place and not the other fails here.
 */
const ROOT = resolve(__dirname, '../..');

/** The checklist's rows as [clause, control] from the section headed `heading`. */
function checklist(file: string, heading: string): string[][] {
  const text = readFileSync(resolve(ROOT, file), 'utf8');
  const section = new RegExp(`^## ${heading}\\n([\\s\\S]*?)(?=^## )`, 'm').exec(text)?.[1] ?? '';
  return section
    .split('\n')
    .filter((line) => /^\| \d/.test(line))
    .map((line) =>
      line
        .split('|')
        .slice(1, 3)
        .map((cell) => cell.trim()),
    );
}

describe.each([
  ['README.md', '等保三级 checklist', 'en'],
  ['README.zh-CN.md', '等保三级检查清单', 'zh'],
] as const)('the 等保三级 checklist of %s', (file, heading, locale) => {
  const rows = checklist(file, heading);

  it('has its rows (a heading or table that moved would leave nothing to compare)', () => {
    expect(rows.length).toBeGreaterThanOrEqual(CONTROLS.length + OUTSIDE.length);
  });

  it.each(CONTROLS.map((c) => [c.id, c] as const))('lists the control %s under its clause', (_id, control) => {
    const shortName = control.name[locale].replace(/[（(].*$/, '').trim();
    expect(rows).toContainEqual([control.clause, expect.stringContaining(shortName.slice(0, 6))]);
  });

  it.each(OUTSIDE.map((o) => [o.id, o] as const))('lists %s as left to the operator under its clause', (_id, item) => {
    expect(rows.filter(([clause]) => clause === item.clause).length).toBeGreaterThan(0);
  });
});
