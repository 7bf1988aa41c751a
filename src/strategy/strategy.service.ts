import { CACHE_MANAGER } from '@nestjs/cache-manager';
import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { EventEmitter2, OnEvent } from '@nestjs/event-emitter';
import type { Cache } from 'cache-manager';

import { actedBy, AuditAction, AuditLogService } from '../audit/audit-log.service';
import { validationFailed } from '../common/app.exception';
import type { Actor } from '../common/auth-context';
import { KeyedMutex } from '../store/keyed-mutex';
import { Keys } from '../store/keys';
import { KvStore } from '../store/kv.store';
import { SaveLoginStrategyDto, SaveUserStrategyDto } from './dto/save-strategy.dto';
import { SettingsRepository } from './settings.repository';
import {
  isPropsGroup,
  isStrategyGroup,
  LoginStrategy,
  PasswordRules,
  StrategyGroup,
  SysPropsChangedEvent,
  UserStrategy,
} from './strategy.types';

type Shape = LoginStrategy | UserStrategy;
const DEFAULTS: Record<StrategyGroup, () => Shape> = {
  [StrategyGroup.LOGIN]: () => new LoginStrategy(),
  [StrategyGroup.USER]: () => new UserStrategy(),
};
const AUDIT_ACTION: Record<StrategyGroup, AuditAction> = {
  [StrategyGroup.LOGIN]: 'strategy.login.save',
  [StrategyGroup.USER]: 'strategy.user.save',
};
const cacheKey = (group: StrategyGroup) => `strategy:${group}`;
const CACHE_TTL_MS = 60_000;
const HELD_MS = 5_000;

/**
 * The two setting groups (2.2): stored one row per field in sys_props,
 * loaded once into the cache and reloaded when a SysPropsChangedEvent says the
 * group changed — on this instance directly, on the others via SYS_PROPS_CHANGED.
 */
@Injectable()
export class StrategyService implements OnModuleInit {
  private readonly logger = new Logger(StrategyService.name);
  /**
   * Each group as last read from the cache, for a few seconds: the login group is read on every
   * authenticated request, and a cache-manager get (keyv underneath) costs that request about a dozen
   * awaits. Dropped at once when the group changes, like the cache entry.
   */
  private readonly held = new Map<StrategyGroup, { value: Shape; until: number }>();
  /** Counts the changes of each group, so that a read begun before a change is not held after it. */
  private readonly generation = new Map<StrategyGroup, number>();

  constructor(
    private readonly settings: SettingsRepository,
    @Inject(CACHE_MANAGER) private readonly cache: Cache,
    private readonly events: EventEmitter2,
    private readonly store: KvStore,
    private readonly mutex: KeyedMutex,
    private readonly audit: AuditLogService,
  ) {}

  async onModuleInit() {
    // Every group, not only the strategies: other modules' caches (the access rules) listen for theirs.
    await this.store.subscribe(Keys.propsChannel, (group) => {
      if (isPropsGroup(group)) this.events.emit(SysPropsChangedEvent.NAME, new SysPropsChangedEvent(group, true));
    });
  }

  loginStrategy(): Promise<LoginStrategy> {
    return this.load(StrategyGroup.LOGIN) as Promise<LoginStrategy>;
  }

  userStrategy(): Promise<UserStrategy> {
    return this.load(StrategyGroup.USER) as Promise<UserStrategy>;
  }

  async passwordRules(): Promise<PasswordRules> {
    const s = await this.userStrategy();
    return {
      minPasswordLength: s.minPasswordLength,
      maxPasswordLength: s.maxPasswordLength,
      includeLowerCase: s.includeLowerCase,
      includeUpperCase: s.includeUpperCase,
      includeNumber: s.includeNumber,
      includeSymbol: s.includeSymbol,
      passwordHistoryCount: s.passwordHistoryCount,
      rejectCommonPasswords: s.rejectCommonPasswords,
      rejectAccountInPassword: s.rejectAccountInPassword,
    };
  }

  /** Save, partial; audited as strategy.login.save (see saveGroup). */
  async saveLogin(dto: SaveLoginStrategyDto, actor: Actor): Promise<LoginStrategy> {
    return (await this.saveGroup(StrategyGroup.LOGIN, dto, actor)) as LoginStrategy;
  }

  /**
   * Save, partial; audited as strategy.user.save. maxPasswordLength ≥ minPasswordLength
   * (unless 0) holds across saves too: the check runs inside the save's mutex against the stored
   * values rather than this instance's cache (another instance's save may not have reached it yet).
   * Otherwise a save of min = 30 and one of max = 20, each valid alone, could both pass.
   */
  async saveUser(dto: SaveUserStrategyDto, actor: Actor): Promise<UserStrategy> {
    return (await this.saveGroup(StrategyGroup.USER, dto, actor, (current) => {
      const { minPasswordLength, maxPasswordLength } = current as UserStrategy;
      const min = dto.minPasswordLength ?? minPasswordLength;
      const max = dto.maxPasswordLength ?? maxPasswordLength;
      if (max !== 0 && max < min) {
        throw validationFailed(
          'validation.maxBelowMin',
          // The field this save sent: a lone minPasswordLength is what breaks the stored maximum.
          dto.maxPasswordLength === undefined ? 'minPasswordLength' : 'maxPasswordLength',
          { min },
        );
      }
    })) as UserStrategy;
  }

  /**
   * One save of a group at a time on every instance: the stored values are read, checked, written
   * and audited (the old and new values of the fields the save sent) inside the group's mutex, so
   * that two administrators saving at once each get their own values in their audit row.
   */
  private async saveGroup(
    group: StrategyGroup,
    dto: object,
    actor: Actor,
    check?: (current: Shape) => void,
  ): Promise<Shape> {
    return this.mutex.run(Keys.strategyMutex(group), async () => {
      const before = await this.read(group);
      check?.(before);
      const after = await this.save(group, dto);
      const sent = Object.entries(dto)
        .filter(([key, v]) => v !== undefined && key in after)
        .map(([key]) => key);
      const fields = (value: Shape) =>
        Object.fromEntries(sent.map((key) => [key, (value as unknown as Record<string, unknown>)[key]]));
      await this.audit.recordDone(AUDIT_ACTION[group], {
        ...actedBy(actor),
        targetId: group,
        detail: { old: fields(before), new: fields(after) },
      });
      return after;
    });
  }

  @OnEvent(SysPropsChangedEvent.NAME)
  async onChanged(event: SysPropsChangedEvent) {
    if (isStrategyGroup(event.group)) {
      this.held.delete(event.group);
      this.generation.set(event.group, (this.generation.get(event.group) ?? 0) + 1);
      await this.cache.del(cacheKey(event.group));
    }
    if (!event.remote) {
      await this.store
        .publish(Keys.propsChannel, event.group)
        .catch((err: Error) => this.logger.warn(`could not announce ${event.group} change: ${err.name}`));
    }
  }

  private load(group: StrategyGroup): Promise<Shape> {
    const held = this.held.get(group);
    return held && held.until > Date.now() ? Promise.resolve(held.value) : this.loadCached(group);
  }

  private async loadCached(group: StrategyGroup): Promise<Shape> {
    const generation = this.generation.get(group) ?? 0;
    // Neither cached nor held when the group changed while this read was under way: the value may
    // predate the change, and would outlive it until the entry expired.
    const current = () => (this.generation.get(group) ?? 0) === generation;
    let value = await this.cache.get<Shape>(cacheKey(group));
    if (!value) {
      value = await this.read(group);
      // The TTL is a safety net: a reload racing a save on another instance cannot keep stale values for long.
      if (current()) await this.cache.set(cacheKey(group), value, CACHE_TTL_MS);
    }
    if (current()) this.held.set(group, { value, until: Date.now() + HELD_MS });
    return value;
  }

  /** The group as stored in sys_props, defaults for the fields never saved. */
  private async read(group: StrategyGroup): Promise<Shape> {
    const stored = await this.settings.readGroup(group);
    const value = DEFAULTS[group]();
    for (const [key, raw] of stored) {
      if (!(key in value)) continue;
      const fields = value as unknown as Record<string, unknown>;
      const fallback = fields[key];
      fields[key] = decode(raw, Array.isArray(fallback) ? 'list' : typeof fallback) ?? fallback;
    }
    return value;
  }

  private async save(group: StrategyGroup, dto: object): Promise<Shape> {
    const values = Object.fromEntries(
      Object.entries(dto)
        .filter(([, v]) => v !== undefined)
        .map(([key, v]) => [key, String(v)]),
    );
    if (Object.keys(values).length) {
      await this.settings.writeGroup(group, values);
      // Await the refresh so that the caller's next read sees the new values.
      await this.events.emitAsync(SysPropsChangedEvent.NAME, new SysPropsChangedEvent(group));
    }
    return this.load(group);
  }
}

function decode(raw: string, type: string): unknown {
  if (type === 'number') return /^-?\d+$/.test(raw) ? Number(raw) : undefined;
  if (type === 'boolean') return raw === 'true' ? true : raw === 'false' ? false : undefined;
  // A list is stored comma-separated (String of an array), the empty list as ''.
  if (type === 'list') return raw === '' ? [] : raw.split(',');
  return raw;
}
