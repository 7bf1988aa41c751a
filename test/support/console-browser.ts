import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Browser, chromium } from 'playwright-core';

/**
 * Browser tests of the admin console drive Debian's Chromium through playwright-core; a browser is
 * never downloaded. `.ci/run` installs the `chromium` package and builds web/dist before the tests.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const CONSOLE_DIST = join(__dirname, '..', '..', 'web', 'dist');

/** Why the browser suite cannot run here, or null when it can. */
export function browserSuiteMissing(): string | null {
  if (!existsSync(CHROMIUM_PATH)) return `${CHROMIUM_PATH} is missing (apt-get install chromium)`;
  if (!existsSync(join(CONSOLE_DIST, 'index.html'))) return 'web/dist is not built (npm run build:web)';
  return null;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ],
  });
}
