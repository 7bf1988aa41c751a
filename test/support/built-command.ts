import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
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

let built: Promise<string> | null = null;

/** Compiles src once per test file (incremental: seconds when src has not changed); resolves to dist/. */
export function buildCommands(): Promise<string> {
  built ??= (async () => {
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
  })();
  return built;
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
