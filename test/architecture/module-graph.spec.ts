import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

import { preProcessFile } from 'typescript';

/**
 * The folders under src/ (features and the kernel they stand on) import each other in one
 * direction only. A cycle between two folders means neither can be read, tested or replaced alone,
 * so the folder graph must have none. The composition root (app.module, main, app.setup) wires
 * everything and is left out; so are specs, which may reach anywhere.
 */
const SRC = resolve(__dirname, '../../src');
/** Imported by everyone, left out of the diagram in docs/architecture.md (database also lists every module's entities). */
const KERNEL = ['common', 'config', 'store', 'database'];

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.ts$/.test(name) && !/\.spec\.ts$/.test(name) ? [path] : [];
  });
}

const folderOf = (path: string): string | null => {
  const parts = relative(SRC, path).split(/[\\/]/);
  return parts.length > 1 ? parts[0] : null;
};

/** folder → folders it imports (type-only imports count: they tie the code together all the same). */
function folderGraph(): Map<string, Map<string, string[]>> {
  const graph = new Map<string, Map<string, string[]>>();
  for (const file of sources(SRC)) {
    const from = folderOf(file);
    if (!from) continue;
    const edges = graph.get(from) ?? new Map<string, string[]>();
    graph.set(from, edges);
    for (const { fileName } of preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const to = folderOf(resolve(dirname(file), fileName));
      if (!to || to === from) continue;
      edges.set(to, [...(edges.get(to) ?? []), relative(SRC, file)]);
    }
  }
  return graph;
}

/** Every cycle, as the folders along it and the files that make each step. */
function cycles(graph: Map<string, Map<string, string[]>>): string[] {
  const found: string[] = [];
  const seen = new Set<string>();
  const walk = (node: string, path: string[]) => {
    for (const next of graph.get(node)?.keys() ?? []) {
      const at = path.indexOf(next);
      if (at >= 0) {
        const loop = [...path.slice(at), next];
        const key = [...loop.slice(0, -1)].sort().join(',');
        if (!seen.has(key)) {
          seen.add(key);
          found.push(
            loop.map((f, i) => (i < loop.length - 1 ? `${f} (${graph.get(f)!.get(loop[i + 1])![0]})` : f)).join(' → '),
          );
        }
      } else if (path.length < 12) {
        walk(next, [...path, next]);
      }
    }
  };
  for (const node of graph.keys()) walk(node, [node]);
  return found;
}

describe('module graph', () => {
  const graph = folderGraph();

  it('has no cycle between the folders under src/', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('keeps the session kernel free of features: it reads only the login settings', () => {
    const kernel = ['common', 'config', 'store', 'session'];
    expect([...(graph.get('session')?.keys() ?? [])].filter((f) => !kernel.includes(f))).toEqual(['strategy']);
  });

  it('is the diagram in docs/architecture.md ("Modules"), kernel left out', () => {
    const doc = readFileSync(resolve(__dirname, '../../docs/architecture.md'), 'utf8');
    const diagram = /^## Modules\n[\s\S]*?```mermaid\n([\s\S]*?)```/m.exec(doc)?.[1] ?? '';
    const drawn = diagram
      .split('\n')
      .map((line) => /^\s*([\w-]+) --> ([\w-]+)\s*$/.exec(line))
      .filter((m) => m !== null)
      .map((m) => `${m![1]} --> ${m![2]}`)
      .sort();
    const actual = [...graph]
      .flatMap(([from, edges]) => [...edges.keys()].map((to) => [from, to]))
      .filter(([from, to]) => !KERNEL.includes(from) && !KERNEL.includes(to))
      .map(([from, to]) => `${from} --> ${to}`)
      .sort();
    expect(drawn).toEqual(actual);
  });

  it('finds the imports it checks (a walker that sees nothing would pass anything)', () => {
    expect(graph.get('auth')?.has('session')).toBe(true);
    expect(graph.get('user-account')?.has('session')).toBe(true);
    expect(
      cycles(
        new Map([
          ['a', new Map([['b', ['a/x.ts']]])],
          ['b', new Map([['a', ['b/y.ts']]])],
        ]),
      ),
    ).toEqual(['a (a/x.ts) → b (b/y.ts) → a']);
  });
});
