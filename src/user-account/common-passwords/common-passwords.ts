import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { Injectable } from '@nestjs/common';

/**
 * rejectCommonPasswords: the bundled lists, one password a line, in lower case (see
 * docs/policies.md, rejectCommonPasswords, for their sources and licences; tools/common-passwords.ts writes
 * them). nest-cli.json copies them beside the compiled code, so dist and the Docker image have them.
 */
export const COMMON_PASSWORD_FILES = ['zxcvbn-passwords.txt', 'chinese-patterns.txt'] as const;

/** Every entry of the lists in `dir`, lower-cased, as one Set. Throws when a list is missing. */
export function loadCommonPasswords(dir: string = __dirname): ReadonlySet<string> {
  const entries = new Set<string>();
  for (const file of COMMON_PASSWORD_FILES) {
    for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
      const entry = line.trim().toLowerCase();
      if (entry) entries.add(entry);
    }
  }
  return entries;
}

/**
 * The list, read once, at the first check that needs it (tens of thousands of entries, held in the heap):
 * an instance that never turns rejectCommonPasswords on, or a command such as admin:recover,
 * never reads it.
 */
@Injectable()
export class CommonPasswords {
  private entries?: ReadonlySet<string>;

  get size(): number {
    return this.list().size;
  }

  /** Case-insensitive: `WoAiNi1314` is `woaini1314`. */
  has(password: string): boolean {
    return this.list().has(password.toLowerCase());
  }

  private list(): ReadonlySet<string> {
    this.entries ??= loadCommonPasswords();
    return this.entries;
  }
}
