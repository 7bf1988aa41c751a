import { randomUUID } from 'node:crypto';

import { Injectable, Logger } from '@nestjs/common';

import { actedBy, AuditLogService } from '../audit/audit-log.service';
import { AccessDenied, AppException, validationFailed } from '../common/app.exception';
import type { Actor } from '../common/auth-context';
import { Clock } from '../common/clock';
import { isUniqueViolation } from '../common/db-errors';
import { ErrorCode } from '../common/error-code';
import { PERMISSION_REGISTRY } from '../common/permissions';
import { Keys } from '../store/keys';
import { KvStore } from '../store/kv.store';
import { codesBeyond } from '../user-account/grants';
import { ApiKeyCache } from './api-key.cache';
import { ApiKeyEntity } from './api-key.entity';
import { ApiKeyRepository } from './api-key.repository';
import { hashApiKey, newApiKey, PREFIX_LENGTH } from './api-key-format';
import { ApiKeyUsage } from './api-key-usage';
import { CreateApiKeyDto } from './dto/api-key.dto';

const DAY_MS = 86_400_000;
const REGISTERED = new Set<string>(PERMISSION_REGISTRY.map((p) => p.code));
/** How many refused codes a message names. */
const NAMED_MAX = 5;

export interface ApiKeyRow {
  id: string;
  name: string;
  prefix: string;
  permissions: string[];
  createTime: Date;
  expireTime: Date | null;
  lastUsedTime: Date | null;
  ipRanges: string[];
  revoked: boolean;
}

/** Making, listing and revoking API keys (POST /sys/apiKey/*); the hot path is ApiKeyAuthenticator's. */
@Injectable()
export class ApiKeyService {
  private readonly logger = new Logger('ApiKeys');

  constructor(
    private readonly rows: ApiKeyRepository,
    private readonly cache: ApiKeyCache,
    private readonly usage: ApiKeyUsage,
    private readonly store: KvStore,
    private readonly clock: Clock,
    private readonly audit: AuditLogService,
  ) {}

  /**
   * A new key, answered once and stored as its SHA-256. Its codes must be codes of the registry,
   * neither `*` nor a key's own (VALIDATION_FAILED), and within the caller's (FORBIDDEN, as for
   * roles: nobody grants more than they hold). Nothing is written before every check passed; the
   * answer waits until every instance can find the key. Audited as apiKey.create.
   */
  async create(dto: CreateApiKeyDto, actor: Actor): Promise<{ id: string; key: string }> {
    const permissions = [...new Set(dto.permissions)];
    const unknown = permissions.filter((code) => !REGISTERED.has(code) && code !== '*');
    if (unknown.length)
      throw validationFailed('validation.unknownCodes', 'permissions', { field: 'permissions', ...named(unknown) });
    // `*` would reach codes added later; the keys' own codes it may hold, since it never reaches
    // their routes (apiKeyReaches), as it never reaches /sys/me/*.
    const refused = permissions.filter((code) => code === '*');
    if (refused.length)
      throw validationFailed('validation.apiKeyCodes', 'permissions', { field: 'permissions', ...named(refused) });
    const beyond = codesBeyond(actor.codes, permissions);
    if (beyond.length) throw new AccessDenied(beyond);

    const key = newApiKey();
    const now = this.clock.now();
    const row: ApiKeyEntity = {
      id: randomUUID(),
      name: dto.name,
      nameKey: dto.name.toLowerCase(),
      keyHash: hashApiKey(key),
      prefix: key.slice(0, PREFIX_LENGTH),
      permissions,
      ipRanges: [...new Set(dto.ipRanges ?? [])],
      createTime: now,
      expireTime: dto.expiresInDays === undefined ? null : new Date(now.getTime() + dto.expiresInDays * DAY_MS),
      lastUsedTime: null,
      revokedTime: null,
    };
    try {
      await this.rows.insert(row);
    } catch (err) {
      if (isUniqueViolation(err)) throw validationFailed('validation.apiKeyNameTaken', 'name', { name: dto.name });
      throw err;
    }
    try {
      await this.cache.announce();
    } catch (err) {
      // Another instance would not find the key yet: rather no key than one that works here only.
      await this.rows.delete(row.id).catch(() => undefined);
      throw err;
    }
    await this.audit.recordDone('apiKey.create', {
      ...actedBy(actor),
      targetId: row.id,
      targetName: row.name,
      detail: {
        name: row.name,
        prefix: row.prefix,
        permissions: row.permissions,
        expireTime: row.expireTime?.toISOString() ?? null,
        ipRanges: row.ipRanges,
      },
    });
    return { id: row.id, key };
  }

  /** Every key, newest first, with the last-used times this instance still held written first. */
  async list(): Promise<ApiKeyRow[]> {
    await this.usage.flush();
    return (await this.rows.all()).map(({ revokedTime, ...row }) => ({ ...row, revoked: revokedTime !== null }));
  }

  /**
   * Revokes a key for good. This instance forgets it at once; the others by the message on
   * API_KEY_REVOKED or, should it be lost, by the stamp they compare every second. The stamp write
   * is part of the answer: when the store does not take it the answer is SERVICE_UNAVAILABLE and a
   * second revoke (which answers OK for a revoked key) announces it again. Audited once, as apiKey.revoke.
   */
  async revoke(id: string, actor: Actor): Promise<void> {
    const row = await this.rows.byId(id);
    if (!row) throw new AppException(ErrorCode.NOT_FOUND);
    const revokedNow = await this.rows.revoke(id, this.clock.now());
    this.cache.forget(id);
    if (revokedNow) {
      await this.audit.recordDone('apiKey.revoke', {
        ...actedBy(actor),
        targetId: row.id,
        targetName: row.name,
        detail: { name: row.name, prefix: row.prefix },
      });
    }
    await this.cache.announce();
    await this.store
      .publish(Keys.apiKeyRevokedChannel, id)
      .catch((err: Error) => this.logger.warn(`could not announce a revoked API key: ${err.name}`));
  }
}

/** The codes a message names: a few, then how many more. */
function named(codes: string[]) {
  const shown = codes.slice(0, NAMED_MAX).join(', ');
  return { codes: codes.length > NAMED_MAX ? `${shown} (+${codes.length - NAMED_MAX})` : shown };
}
