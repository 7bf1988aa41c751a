import { randomBytes } from 'node:crypto';

import { Inject, Injectable, Logger, OnModuleInit, Optional } from '@nestjs/common';

import { ONE_OFF_COMMAND } from '../common/one-off-command';
import { AppConfig } from '../config/app-config';
import { CRYPTO_SUITE, CryptoSuite } from '../crypto/crypto-suite';
import { suitesFrom } from '../crypto/suites';
import { SettingsRepository } from '../strategy/settings.repository';

// The settings row that holds the generated key when PII_ENCRYPTION_KEY is unset.
const KEY_ROW = { group: 'sys_security', key: 'pii_encryption_key' } as const;

/** One key under one suite: what a stored value's version names. */
interface KeyEntry {
  /** The version a stored value carries: a fingerprint of suite and key, so nobody has to number keys. */
  version: string;
  suite: CryptoSuite;
  key: Buffer;
  /** The key of the look-up hashes, derived through the suite: a new key or suite gives new hashes. */
  hashKey: Buffer;
}

/**
 * Mobile numbers and e-mail addresses at rest (docs/security.md#personal-data): sealed by the crypto
 * suite in force under PII_ENCRYPTION_KEY, as `<version>:<sealed>`, with a keyed hash for look-ups.
 * Values sealed under a previous key (PII_ENCRYPTION_KEY_PREVIOUS) or by the standard suite while
 * another is in force still open, and their hashes still match, until PiiReencryptJob has moved them.
 */
@Injectable()
export class PiiCipher implements OnModuleInit {
  private readonly logger = new Logger('Pii');
  private entries: KeyEntry[] = [];
  private decoyValue?: string;

  constructor(
    @Inject(CRYPTO_SUITE) private readonly suite: CryptoSuite,
    private readonly config: AppConfig,
    private readonly settings: SettingsRepository,
    @Optional() @Inject(ONE_OFF_COMMAND) private readonly command = false,
  ) {}

  async onModuleInit() {
    const configured = this.config.PII_ENCRYPTION_KEY;
    // Advice for the service's start log; a command's output is read by scripts and people.
    if (!configured && !this.command) {
      this.logger.warn(
        'PII_ENCRYPTION_KEY is not set: mobile numbers and e-mail addresses are encrypted under a key kept in the ' +
          'database; set PII_ENCRYPTION_KEY (openssl rand -base64 32) so that a copy of the database alone cannot read them',
      );
    }
    const current = configured ?? (await this.sharedKey());
    const previous = (this.config.PII_ENCRYPTION_KEY_PREVIOUS ?? '')
      .split(',')
      .map((k) => k.trim())
      .filter(Boolean);
    // A generated key stays readable after PII_ENCRYPTION_KEY is set: it becomes a previous key.
    const stored = configured ? await this.settings.get(KEY_ROW.group, KEY_ROW.key) : null;
    const keys = [...new Set([current, ...previous, ...(stored ? [stored] : [])])].map((k) => Buffer.from(k, 'base64'));
    // Every suite stays a reader, the one in force first: after a switch either way, the rows the other
    // sealed open and match until PiiReencryptJob has moved them.
    this.entries = suitesFrom(this.suite).flatMap((suite) =>
      keys.map((key) => ({
        version: `${suite.name}-${suite.mac(key, 'sys_user pii key version').slice(0, 8)}`,
        suite,
        key,
        hashKey: Buffer.from(suite.mac(key, 'sys_user pii hash key'), 'hex'),
      })),
    );
  }

  /** A sealed value to open where no real one is, so that both paths cost the same (OtpSendService). */
  get decoy(): string {
    this.decoyValue ??= this.seal('13800000000');
    return this.decoyValue;
  }

  /** The version of values sealed now (sys_user.pii_version of rows up to date). */
  get version(): string {
    return this.entries[0].version;
  }

  seal(plain: string): string;
  seal(plain: string | null): string | null;
  seal(plain: string | null): string | null {
    if (plain === null) return null;
    const current = this.entries[0];
    return `${current.version}:${current.suite.seal(current.key, plain)}`;
  }

  /** The plain value; a throw when no known key and suite opens it. */
  open(stored: string): string;
  open(stored: string | null): string | null;
  open(stored: string | null): string | null {
    if (stored === null) return null;
    const at = stored.indexOf(':');
    const version = stored.slice(0, at);
    const sealed = stored.slice(at + 1);
    const entry = this.entries.find((e) => e.version === version && e.suite.owns(sealed));
    if (at < 0 || !entry) throw new Error('personal data sealed under an unknown key or suite');
    return entry.suite.open(entry.key, sealed);
  }

  /**
   * The plain value of what a row or a session holds: opened when sealed, as it is when it was written before
   * encryption and PiiReencryptJob has not reached it yet (a mobile or e-mail never starts with `<version>:`).
   */
  reveal(stored: string): string;
  reveal(stored: string | null): string | null;
  reveal(stored: string | null | undefined): string | null;
  reveal(stored: string | null | undefined): string | null {
    if (stored === null || stored === undefined) return null;
    return this.isSealed(stored) ? this.open(stored) : stored;
  }

  /** A copy of `row` with its mobile and e-mail in plain text. */
  revealed<T extends { mobile: string | null; email: string | null }>(row: T): T {
    return { ...row, mobile: this.reveal(row.mobile), email: this.reveal(row.email) };
  }

  /** Whether `stored` carries the version of a known key and suite. */
  isSealed(stored: string): boolean {
    const at = stored.indexOf(':');
    return at > 0 && this.entries.some((e) => e.version === stored.slice(0, at) && e.suite.owns(stored.slice(at + 1)));
  }

  /** Whether `stored` was sealed by the suite in force under the current key (else the job re-encrypts it). */
  isCurrent(stored: string): boolean {
    const current = this.entries[0];
    return stored.startsWith(`${current.version}:`) && current.suite.owns(stored.slice(current.version.length + 1));
  }

  /** The keyed hash of a normalised value, as stored now. */
  hash(normalised: string): string;
  hash(normalised: string | null): string | null;
  hash(normalised: string | null): string | null {
    if (normalised === null) return null;
    const current = this.entries[0];
    return current.suite.mac(current.hashKey, normalised);
  }

  /** Every hash a stored row may hold for `normalised`: the current one first, then those of previous keys and suites. */
  lookupHashes(normalised: string): string[] {
    return [...new Set(this.entries.map((e) => e.suite.mac(e.hashKey, normalised)))];
  }

  private async sharedKey(): Promise<string> {
    const existing = await this.settings.get(KEY_ROW.group, KEY_ROW.key);
    if (existing !== null) return existing;
    // Two instances starting together: the first insert wins, both then use the stored key.
    return this.settings.insertIfAbsent(KEY_ROW.group, KEY_ROW.key, randomBytes(32).toString('base64'));
  }
}
