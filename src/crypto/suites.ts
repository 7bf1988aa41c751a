import type { CryptoSuiteName } from '../config/app-config';
import { CryptoSuite, STANDARD_SUITE } from './crypto-suite';
import { GM_SUITE } from './gm-suite';

export const SUITES: Record<CryptoSuiteName, CryptoSuite> = { standard: STANDARD_SUITE, gm: GM_SUITE };

/** Every suite, `first` first: the one in force, then those an installation may have used before a switch. */
export function suitesFrom(first: CryptoSuite): CryptoSuite[] {
  return [first, ...Object.values(SUITES).filter((s) => s.name !== first.name)];
}

/** The suite that sealed `stored`, or null when none did. */
export function suiteOwning(stored: string): CryptoSuite | null {
  return Object.values(SUITES).find((s) => s.owns(stored)) ?? null;
}
