// `npm start`: install, build what changed, then run the service (in this process, so that signals
// reach it directly). Every step is skipped when its inputs are the ones it last ran on; a hash of
// the files, not their times, so that a checkout or a copy does not count as a change. package.json
// runs it through tools/node24.mjs, so that it runs on a Node that can load better-sqlite3 (Node 24
// from the npm registry when the machine's Node is too old), and installs and builds on that Node.
//
// - npm install, for the service and for the console (web/), with --include=dev: building needs
//   TypeScript, vue-tsc and vite, which NODE_ENV=production would otherwise leave out. Skipped when
//   package.json, package-lock.json and npm's record of what it installed
//   (node_modules/.package-lock.json) are as after the last install.
// - the console build (web/dist), skipped when web's sources and lockfile are unchanged.
// - the service build (dist/), skipped when src, the tsconfigs and the lockfile are unchanged;
//   otherwise tsc -p tsconfig.build.json, incremental (what `nest build` compiles, without
//   deleting dist first).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { recordNativeBuild } from './node24.mjs';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const WEB = join(ROOT, 'web');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function files(path) {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .sort()
    .flatMap((name) => files(join(path, name)));
}

function hashOf(paths) {
  const hash = createHash('sha256');
  for (const file of paths.flatMap(files))
    hash.update(relative(ROOT, file)).update('\0').update(readFileSync(file)).update('\0');
  return hash.digest('hex');
}

/** Runs `work` unless `stampFile` holds the hash of `inputs` and `output` exists; then records the hash. */
function step(label, stampFile, inputs, output, work, afterInputs = inputs) {
  const before = hashOf(inputs);
  if (existsSync(output) && existsSync(stampFile) && readFileSync(stampFile, 'utf8') === before) {
    console.log(`start: ${label}: up to date`);
    return;
  }
  const started = Date.now();
  console.log(`start: ${label} …`);
  work();
  mkdirSync(dirname(stampFile), { recursive: true });
  writeFileSync(stampFile, hashOf(afterInputs));
  console.log(`start: ${label}: done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

const run = (command, args, cwd) => execFileSync(command, args, { cwd, stdio: 'inherit' });

for (const [label, dir] of [
  ['install', ROOT],
  ['install console', WEB],
]) {
  const manifests = [join(dir, 'package.json'), join(dir, 'package-lock.json')];
  const installed = [...manifests, join(dir, 'node_modules', '.package-lock.json')];
  // The stamp lives outside node_modules: `npm prune --omit=dev` rewrites npm's record, which then
  // differs from the stamp, and the next start installs the build tools again.
  step(
    label,
    join(dir, '.lps-build', 'install'),
    installed,
    join(dir, 'node_modules'),
    () => {
      run(npm, ['install', '--no-audit', '--no-fund', '--include=dev'], dir);
      // Installed by the Node running this: no rebuild for it on the next start.
      if (dir === ROOT) recordNativeBuild();
    },
    installed,
  );
}

step(
  'console build',
  join(WEB, '.lps-build', 'web-dist'),
  ['src', 'public', 'index.html', 'vite.config.ts', 'tsconfig.json', 'package-lock.json'].map((p) => join(WEB, p)),
  join(WEB, 'dist', 'index.html'),
  () => run(npm, ['run', 'build'], WEB),
);

const main = join(ROOT, 'dist', 'src', 'main.js');
step(
  'service build',
  join(ROOT, '.lps-build', 'dist'),
  ['src', 'ormconfig.ts', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'].map((p) => join(ROOT, p)),
  main,
  () => {
    // tsc trusts its build info: with the output deleted it would emit nothing.
    if (!existsSync(main)) rmSync(join(ROOT, 'dist', '.tsbuildinfo'), { force: true });
    run(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], ROOT);
  },
);

await import(pathToFileURL(main).href);
