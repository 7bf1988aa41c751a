import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const ROOT = join(__dirname, '..', '..');
/**
 * Commands are tested as they run in production: compiled by tsconfig.build.json (what `nest build`
 * uses) and started with node. Into a build of this checkout's own (never dist/, which `npm start`
 * and people use), inside node_modules so that it resolves the project's packages and git ignores
 * it; keyed by the checkout's path because worktrees may share one node_modules.
 */
const BUILD_DIR = join(
  ROOT,
  'node_modules',
  '.cache',
  `lps-commands-${createHash('sha256').update(ROOT).digest('hex').slice(0, 10)}`,
);

const LOCK = join(BUILD_DIR, 'lock');
// A build older than this is taken for one whose test process died holding the lock.
const STALE_LOCK_MS = 5 * 60_000;

let built: Promise<string> | null = null;

/**
 * Compiles src once per test file (incremental: seconds when src has not changed); resolves to dist/.
 * Jest runs files in parallel workers: one compiles at a time (a directory as the lock), the others
 * wait and then find the output up to date.
 */
export function buildCommands(): Promise<string> {
  built ??= withLock(async () => {
    const dist = join(BUILD_DIR, 'dist');
    // tsc trusts its build info: with the output deleted it would emit nothing.
    if (!existsSync(join(dist, 'src', 'cli'))) rmSync(join(BUILD_DIR, 'tsbuildinfo'), { force: true });
    try {
      await promisify(execFile)(
        process.execPath,
        [
          join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
          '-p',
          join(ROOT, 'tsconfig.build.json'),
          '--outDir',
          dist,
          '--tsBuildInfoFile',
          join(BUILD_DIR, 'tsbuildinfo'),
        ],
        { cwd: ROOT, timeout: 180_000, maxBuffer: 10 * 1024 * 1024 },
      );
    } catch (err: any) {
      throw new Error(`build failed: ${err.stdout ?? ''}${err.stderr ?? ''}${err.message}`, { cause: err });
    }
    return dist;
  });
  return built;
}

async function withLock<T>(work: () => Promise<T>): Promise<T> {
  mkdirSync(BUILD_DIR, { recursive: true });
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch (err: any) {
      if (err.code !== 'EEXIST') throw err;
      const since = Date.now() - (statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (since > STALE_LOCK_MS) rmSync(LOCK, { recursive: true, force: true });
      else await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  try {
    return await work();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a built script with node and the given environment only (plus PATH); never rejects on a non-zero exit. */
export async function runCommand(
  script: string,
  args: string[],
  env: Record<string, string>,
  timeoutMs = 60_000,
): Promise<CommandResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [script, ...args],
      {
        cwd: ROOT,
        timeout: timeoutMs,
        env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...env },
      },
      (err: any, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr });
      },
    );
  });
}
