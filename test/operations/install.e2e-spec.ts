import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// npm's own comparison (npm-install-checks uses semver); in the tree through many packages, typed here.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { satisfies } = require('semver') as { satisfies(version: string, range: string): boolean };

/*
 * What `npm install` does on an operator's machine: sends no install report, and warns of no
 * engine on a Node that `engines` says is supported (npm's EBADENGINE compares every locked
 * package's `engines.node` with the running Node, which is what is done here for the lowest Node
 * of each line `engines` allows).
 */

const ROOT = join(__dirname, '..', '..');
const json = (path: string) => JSON.parse(readFileSync(join(ROOT, path), 'utf8'));

describe('npm install', () => {
  it("sends no install report: @scarf/scarf's install script finds the project's opt-out", () => {
    const lock = json('package-lock.json');
    // Still a dependency (through swagger-ui-dist): otherwise the setting below can go.
    expect(lock.packages['node_modules/@scarf/scarf']).toBeDefined();
    // The key @scarf/scarf's report.js reads from the root package (userHasOptedOut).
    expect(json('package.json').scarfSettings).toEqual({ enabled: false });
  });

  it.each(['package-lock.json', 'web/package-lock.json'])(
    '%s: every package accepts the lowest Node of each line engines allows (no EBADENGINE)',
    (lockFile) => {
      const range: string = json('package.json').engines.node;
      const floors = range.split('||').map((part) => /(\d+\.\d+\.\d+)/.exec(part)![1]);
      expect(floors).toEqual(['22.22.3', '24.15.0']);
      const refusing: string[] = [];
      for (const [path, entry] of Object.entries<{ engines?: { node?: string } }>(json(lockFile).packages)) {
        const wanted = entry.engines?.node;
        if (!path || !wanted) continue;
        for (const node of floors) if (!satisfies(node, wanted)) refusing.push(`${path} wants ${wanted}, not ${node}`);
      }
      expect(refusing).toEqual([]);
    },
  );
});
