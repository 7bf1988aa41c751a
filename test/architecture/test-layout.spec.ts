import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * `test/` mirrors `src/`: the suites of one module live in the folder of that module's name, so that
 * "where are the tests of the lock?" has the same answer as "where is the lock?". Suites that cross
 * modules have folders of their own, listed here; the shared helpers live in `test/support/`.
 */
const ROOT = resolve(__dirname, '../..');
const CROSS_CUTTING = ['architecture', 'cluster', 'console', 'docs', 'extending', 'hardening', 'operations', 'support'];
/** Packages beside src/ with suites of their own against the running service. */
const PACKAGES = ['client'];

const modules = () => readdirSync(join(ROOT, 'src')).filter((name) => statSync(join(ROOT, 'src', name)).isDirectory());

describe('the layout of test/', () => {
  it('has no suite at its top level: each lives in a module folder or a cross-cutting one', () => {
    const loose = readdirSync(join(ROOT, 'test')).filter((name) => !statSync(join(ROOT, 'test', name)).isDirectory());
    expect(loose).toEqual([]);
  });

  it('names each folder after a module of src/ or one of the cross-cutting suites or packages', () => {
    const known = new Set([...modules(), ...CROSS_CUTTING, ...PACKAGES]);
    const folders = readdirSync(join(ROOT, 'test')).filter((name) => statSync(join(ROOT, 'test', name)).isDirectory());
    expect(folders.filter((name) => !known.has(name))).toEqual([]);
  });
});
