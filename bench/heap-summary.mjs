// Summarises V8 heap snapshots (node --heapsnapshot-signal, BENCH_HEAP=1): self size and count by
// constructor; with two files, what grew from the first to the second.
//   node bench/heap-summary.mjs <a.heapsnapshot> [<b.heapsnapshot>] [N]
import { readFileSync } from 'node:fs';

const files = process.argv.slice(2).filter((a) => a.endsWith('.heapsnapshot'));
const top = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 25);

function summarise(file) {
  const snap = JSON.parse(readFileSync(file, 'utf8'));
  const {
    node_fields: fields,
    node_types: [types],
  } = snap.snapshot.meta;
  const width = fields.length;
  const [iType, iName, iSize] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
  const byName = new Map();
  let total = 0;
  for (let i = 0; i < snap.nodes.length; i += width) {
    const type = types[snap.nodes[i + iType]];
    const name = type === 'object' || type === 'closure' ? snap.strings[snap.nodes[i + iName]] : `(${type})`;
    const size = snap.nodes[i + iSize];
    total += size;
    const entry = byName.get(name) ?? { size: 0, count: 0 };
    entry.size += size;
    entry.count += 1;
    byName.set(name, entry);
  }
  return { total, byName };
}

const mib = (b) => `${(b / 2 ** 20).toFixed(1).padStart(7)} MiB`;
const [a, b] = files.map(summarise);
console.log(`${files[0]}: ${mib(a.total)}${b ? `\n${files[1]}: ${mib(b.total)}` : ''}`);
if (!b) {
  console.log('\nlargest by self size:');
  [...a.byName]
    .sort((x, y) => y[1].size - x[1].size)
    .slice(0, top)
    .forEach(([name, e]) => console.log(`  ${mib(e.size)} ${String(e.count).padStart(9)}  ${name.slice(0, 80)}`));
} else {
  console.log('\ngrowth from the first to the second, by self size:');
  const names = new Set([...a.byName.keys(), ...b.byName.keys()]);
  [...names]
    .map((n) => [
      n,
      (b.byName.get(n)?.size ?? 0) - (a.byName.get(n)?.size ?? 0),
      (b.byName.get(n)?.count ?? 0) - (a.byName.get(n)?.count ?? 0),
    ])
    .sort((x, y) => y[1] - x[1])
    .slice(0, top)
    .forEach(([name, size, count]) => console.log(`  ${mib(size)} ${String(count).padStart(9)}  ${name.slice(0, 80)}`));
}
