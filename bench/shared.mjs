// What the bench scripts share: the service compiled into a build of their own, and a free port.
import { execFileSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Compiles src with tsconfig.build.json (what `npm run build` runs) into node_modules/.cache/<name>,
 * inside node_modules so that it resolves the project's packages: dist/ may be in use by a running
 * instance or by someone else's build. Incremental, a few seconds when src is unchanged. Answers the
 * build's dist/ folder.
 */
export function compileService(name, log) {
  const buildDir = join(ROOT, 'node_modules', '.cache', name);
  const dist = join(buildDir, 'dist');
  // A build folder emptied by hand would otherwise be taken as up to date by tsc's build info.
  if (!existsSync(join(dist, 'src', 'main.js'))) rmSync(join(buildDir, 'tsbuildinfo'), { force: true });
  log('compiling src (tsc -p tsconfig.build.json)');
  execFileSync(
    process.execPath,
    [
      join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
      '-p',
      join(ROOT, 'tsconfig.build.json'),
      '--outDir',
      dist,
      '--tsBuildInfoFile',
      join(buildDir, 'tsbuildinfo'),
    ],
    { cwd: ROOT, stdio: 'inherit' },
  );
  return dist;
}

/** A TCP port nobody listens on now, on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}
