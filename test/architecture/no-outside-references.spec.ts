import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

/**
 * A comment or a description string that sends the reader to a document a clone does not have
 * (a section of the contract, a numbered section of the spec, an issue number) explains nothing:
 * the reader cannot follow it. The code says the rule itself, or points into the repository (docs/).
 */
const ROOT = resolve(__dirname, '../..');
const FOLDERS = ['src', 'web/src', 'tools', 'bench', 'client/src'];
const CODE = /\.(ts|mts|cts|js|mjs|cjs|vue|html|css)$/;

const OUTSIDE: Array<[string, RegExp]> = [
  ['a section sign', /§/],
  ['a numbered spec section', /\bspecs?\s+\d+(\.\d+)*\b/i],
  ['an issue number', /\bissues?\s+#?\d+/i],
  ['the spec or contract document', /\b(the|per|see) (spec|contract)('s)?\b(?![-.]| file)/i],
  ['a spec file', /\b(contract|login-policy-service|spec)\.md\b|\.\.\/shared\/|\/work\/shared/i],
];

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (name === 'node_modules' || name === 'dist') return [];
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return CODE.test(name) ? [path] : [];
  });
}

/** Every line that points outside the repository, as "file:line (what): text". */
export function outsideReferences(root = ROOT, folders = FOLDERS): string[] {
  return folders.flatMap((folder) =>
    files(join(root, folder)).flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) => {
          const hit = OUTSIDE.find(([, pattern]) => pattern.test(line));
          return hit ? [`${relative(root, file)}:${i + 1} (${hit[0]}): ${line.trim()}`] : [];
        }),
    ),
  );
}

describe('no comment points at a document outside the repository', () => {
  it.each(FOLDERS)('%s names no contract section, spec section or issue', (folder) => {
    expect(outsideReferences(ROOT, [folder])).toEqual([]);
  });

  it('recognises the references it forbids and lets ordinary words through', () => {
    // Assembled from parts, so that this file holds no such reference itself.
    const section = '\u00a7';
    const number = ['4', '1'].join('.');
    const caught = [
      `// Contract ${section}5: the lock`,
      `/** spec ${number} step 9 */`,
      `@ApiDoc('Log in (spec ${number})')`,
      `// Issue ${17}: the code of a failure`,
      '// as the spec wants',
      '// see contract.md',
    ];
    const passed = [
      '// login-steps.spec.ts specifies each step',
      "describe('the lock', () => {",
      '// a contract of the port',
    ];
    const hits = (line: string) => OUTSIDE.some(([, pattern]) => pattern.test(line));
    expect(caught.filter((line) => !hits(line))).toEqual([]);
    expect(passed.filter(hits)).toEqual([]);
  });
});
