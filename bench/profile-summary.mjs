// Summarises a V8 .cpuprofile (node --cpu-prof): self time by function and by package, top N.
//   node bench/profile-summary.mjs <file.cpuprofile> [N]
import { readFileSync } from 'node:fs';

const [file, topArg] = process.argv.slice(2);
const top = Number(topArg ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map();
const deltas = profile.timeDeltas;
profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (deltas[i] ?? 0)));
const total = [...self.values()].reduce((a, b) => a + b, 0);

const where = (cf) => {
  const url = cf.url || '';
  const pkg = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/)?.[1];
  if (pkg) return pkg;
  if (url.includes('/dist/src/')) return 'service: ' + url.split('/dist/src/')[1].split('/').slice(0, -1).join('/');
  if (url.startsWith('node:')) return url;
  return url ? 'other' : `(${cf.functionName || 'native'})`;
};
const fn = new Map();
const pkg = new Map();
for (const [id, us] of self) {
  const cf = byId.get(id).callFrame;
  const name = `${cf.functionName || '(anonymous)'} ${(cf.url || '').replace(/.*node_modules\//, '').replace(/.*\/dist\/src\//, 'src/')}:${cf.lineNumber + 1}`;
  fn.set(name, (fn.get(name) ?? 0) + us);
  pkg.set(where(cf), (pkg.get(where(cf)) ?? 0) + us);
}
const pct = (us) => `${((us / total) * 100).toFixed(1).padStart(5)} %`;
console.log(`total sampled ${(total / 1000).toFixed(0)} ms`);
console.log('\nby package / place (self time):');
[...pkg]
  .sort((a, b) => b[1] - a[1])
  .slice(0, top)
  .forEach(([k, us]) => console.log(`  ${pct(us)}  ${k}`));
console.log('\nby function (self time):');
[...fn]
  .sort((a, b) => b[1] - a[1])
  .slice(0, top)
  .forEach(([k, us]) => console.log(`  ${pct(us)}  ${k}`));
