import { BlockList, isIP } from 'node:net';

import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { LRUCache } from 'lru-cache';

import { Clock } from '../common/clock';
import { Keys } from '../store/keys';
import { KvStore } from '../store/kv.store';
import { StampedSnapshot } from '../store/stamped-snapshot';
import type { ApiKeyEntity } from './api-key.entity';
import { ApiKeyRepository } from './api-key.repository';
import { rangeOf } from './ip-ranges';

/** A key as the hot path checks it, parsed once when it enters the cache. */
export interface ApiKeyRecord {
  id: string;
  name: string;
  permissions: readonly string[];
  /** epoch ms; null: never. */
  expireAt: number | null;
  /** The addresses the key is good from; null: any. */
  ranges: BlockList | null;
}

/** Keys held parsed; an internal service's keys are few, so a miss is a key not seen for long. */
const RECORDS_MAX = 10_000;
/** Hashes known to be no key, each for a minute at most. */
const ABSENT_MAX = 10_000;
const ABSENT_TTL_MS = 60_000;
/**
 * The safety net under the pub/sub message: each instance compares the store's stamp this often,
 * so that a revocation holds within a second even when the message is lost.
 */
const CHECK_MS = 500;
/** And reads the live keys again whatever the stamp says, should a stamp write itself have failed. */
const RELOAD_MS = 60_000;

/**
 * The keys as the hot path sees them, from process memory (docs/security.md#api-keys):
 * - `records`: a bounded LRU of key hash → parsed key, filled from the database on a miss;
 * - `live`: the hashes of every key not revoked (a few bytes each), read whole from the database.
 *   A miss whose hash is not among them is no key, answered without the database and remembered
 *   in `absent` (bounded, a minute each), so a flood of made-up keys, all different, costs one store
 *   read each and never a query;
 * - the store's stamp (API_KEYS_STAMP), rewritten after every create and revoke: a miss reads it
 *   and reads `live` again when it moved, so a key made on another instance works here at once.
 *
 * A revocation reaches every instance within a second: the revoking one forgets the key itself and
 * publishes on API_KEY_REVOKED; should that message be lost, every instance also compares the stamp
 * twice a second and evicts what is no longer live.
 */
@Injectable()
export class ApiKeyCache implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('ApiKeys');
  private readonly records = new LRUCache<string, ApiKeyRecord>({ max: RECORDS_MAX });
  /** A minute on the service's clock (ttlResolution 0: asked, not cached per tick). */
  private readonly absent: LRUCache<string, true>;
  private readonly live: StampedSnapshot<ReadonlySet<string>>;
  /** Concurrent misses of one hash share one lookup. */
  private readonly lookups = new Map<string, Promise<ApiKeyRecord | null>>();
  /** Counts revocations, so that a lookup begun before one does not keep what it read. */
  private generation = 0;
  private timer?: NodeJS.Timeout;
  private checkFailing = false;

  constructor(
    private readonly rows: ApiKeyRepository,
    private readonly store: KvStore,
    clock: Clock,
  ) {
    this.absent = new LRUCache<string, true>({
      max: ABSENT_MAX,
      ttl: ABSENT_TTL_MS,
      ttlResolution: 0,
      perf: { now: () => clock.nowMs() },
    });
    this.live = new StampedSnapshot(store, {
      stampKey: Keys.apiKeysStamp,
      read: () => this.readLive(),
      now: () => clock.nowMs(),
      reloadMs: RELOAD_MS,
    });
  }

  async onModuleInit() {
    await this.store.subscribe(Keys.apiKeyRevokedChannel, (id) => this.forget(id));
    this.timer = setInterval(() => void this.check(), CHECK_MS);
    this.timer.unref();
  }

  onModuleDestroy() {
    clearInterval(this.timer);
  }

  /** The key with this hash, revoked and unknown ones null; expiry and address are the caller's to check. */
  find(keyHash: string): Promise<ApiKeyRecord | null> {
    const hit = this.records.get(keyHash);
    if (hit) return Promise.resolve(hit);
    if (this.absent.get(keyHash)) return Promise.resolve(null);
    let lookup = this.lookups.get(keyHash);
    if (!lookup) {
      lookup = this.lookUp(keyHash).finally(() => this.lookups.delete(keyHash));
      this.lookups.set(keyHash, lookup);
    }
    return lookup;
  }

  /** A key revoked (here, or announced by another instance): evicted at once. */
  forget(id: string): void {
    this.generation += 1;
    for (const [hash, record] of this.records.entries()) if (record.id === id) this.records.delete(hash);
    this.live.invalidate();
  }

  /**
   * Tells every instance that the keys changed: a new stamp, which each compares on a miss and
   * every second. The caller awaits it before answering, so a key just made works on any instance.
   */
  announce(): Promise<void> {
    return this.live.announce();
  }

  private async lookUp(keyHash: string): Promise<ApiKeyRecord | null> {
    const generation = this.generation;
    const live = await this.live.refresh();
    if (!live.has(keyHash)) {
      this.absent.set(keyHash, true);
      return null;
    }
    const row = await this.rows.byHash(keyHash);
    if (!row || row.revokedTime) {
      // Revoked since `live` was read: a revocation is for good.
      this.absent.set(keyHash, true);
      return null;
    }
    const record = recordOf(row);
    // A revocation that arrived meanwhile may postdate the row read: answer it once, keep it not.
    if (generation === this.generation) this.records.set(keyHash, record);
    return record;
  }

  /** The safety net each second; a store or database that does not answer is logged once per outage. */
  private async check(): Promise<void> {
    try {
      await this.live.refresh();
      this.checkFailing = false;
    } catch (err) {
      if (!this.checkFailing) this.logger.warn(`cannot check the API keys for revocations: ${(err as Error).name}`);
      this.checkFailing = true;
    }
  }

  /** The hashes of the live keys; what is held parsed and is no longer among them is evicted. */
  private async readLive(): Promise<ReadonlySet<string>> {
    const live = new Set(await this.rows.liveHashes());
    let evicted = false;
    for (const hash of [...this.records.keys()]) {
      if (!live.has(hash)) {
        this.records.delete(hash);
        evicted = true;
      }
    }
    if (evicted) this.generation += 1;
    return live;
  }
}

function recordOf(row: ApiKeyEntity): ApiKeyRecord {
  let ranges: BlockList | null = null;
  for (const text of row.ipRanges ?? []) {
    const range = rangeOf(text);
    if (!range) continue;
    ranges ??= new BlockList();
    ranges.addSubnet(range.address, range.prefix, range.family);
  }
  return Object.freeze({
    id: row.id,
    name: row.name,
    permissions: Object.freeze([...row.permissions]),
    expireAt: row.expireTime ? row.expireTime.getTime() : null,
    // A key limited to ranges none of which parses (none can: they were checked when it was made)
    // is good from nowhere rather than from anywhere.
    ranges: row.ipRanges?.length ? (ranges ?? new BlockList()) : null,
  });
}

/** Whether the client address is one the key is good from. */
export function allowsAddress(record: ApiKeyRecord, ip: string): boolean {
  if (!record.ranges) return true;
  const family = isIP(ip);
  return family !== 0 && record.ranges.check(ip, family === 6 ? 'ipv6' : 'ipv4');
}
