import { CACHE_MANAGER } from '@nestjs/cache-manager';
import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { EventEmitter2, OnEvent } from '@nestjs/event-emitter';
import { InjectRepository } from '@nestjs/typeorm';
import type { Cache } from 'cache-manager';
import { Repository } from 'typeorm';
import { validationFailed } from '../common/app.exception';
import { KeyedMutex } from '../store/keyed-mutex';
import { KvStore } from '../store/kv.store';
import { Keys } from '../store/keys';
import { SaveLoginStrategyDto, SaveUserStrategyDto } from './dto/save-strategy.dto';
import { SysPropEntity } from './sys-prop.entity';
import {
  LoginStrategy, PasswordRules, StrategyGroup, SysPropsChangedEvent, UserStrategy,
} from './strategy.types';

type Shape = LoginStrategy | UserStrategy;
const DEFAULTS: Record<StrategyGroup, () => Shape> = {
  [StrategyGroup.LOGIN]: () => new LoginStrategy(),
  [StrategyGroup.USER]: () => new UserStrategy(),
};
const cacheKey = (group: StrategyGroup) => `strategy:${group}`;
const CACHE_TTL_MS = 60_000;

/**
 * The two setting groups (spec 2.1, 2.2): stored one row per field in sys_props,
 * loaded once into the cache and reloaded when a SysPropsChangedEvent says the
 * group changed — on this instance directly, on the others via SYS_PROPS_CHANGED.
 */
@Injectable()
export class StrategyService implements OnModuleInit {
  private readonly logger = new Logger(StrategyService.name);

  constructor(
    @InjectRepository(SysPropEntity) private readonly props: Repository<SysPropEntity>,
    @Inject(CACHE_MANAGER) private readonly cache: Cache,
    private readonly events: EventEmitter2,
    private readonly store: KvStore,
    private readonly mutex: KeyedMutex,
  ) {}

  async onModuleInit() {
    await this.store.subscribe(Keys.propsChannel, (group) => {
      if (Object.values(StrategyGroup).includes(group as StrategyGroup)) {
        this.events.emit(SysPropsChangedEvent.NAME, new SysPropsChangedEvent(group as StrategyGroup, true));
      }
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
    };
  }

  async saveLogin(dto: SaveLoginStrategyDto): Promise<LoginStrategy> {
    return (await this.save(StrategyGroup.LOGIN, dto)) as LoginStrategy;
  }

  /**
   * maxPasswordLength ≥ minPasswordLength (unless 0) holds across saves too: the check and the
   * write of one group run one at a time on every instance, against the stored values rather than
   * this instance's cache (another instance's save may not have reached it yet). Otherwise a save
   * of min = 30 and one of max = 20, each valid alone, could both pass.
   */
  async saveUser(dto: SaveUserStrategyDto): Promise<UserStrategy> {
    return this.mutex.run(Keys.strategyMutex(StrategyGroup.USER), async () => {
      const current = (await this.read(StrategyGroup.USER)) as UserStrategy;
      const min = dto.minPasswordLength ?? current.minPasswordLength;
      const max = dto.maxPasswordLength ?? current.maxPasswordLength;
      if (max !== 0 && max < min) {
        throw validationFailed(
          'validation.maxBelowMin',
          // The field this save sent: a lone minPasswordLength is what breaks the stored maximum.
          dto.maxPasswordLength === undefined ? 'minPasswordLength' : 'maxPasswordLength',
          { min },
        );
      }
      return (await this.save(StrategyGroup.USER, dto)) as UserStrategy;
    });
  }

  @OnEvent(SysPropsChangedEvent.NAME)
  async onChanged(event: SysPropsChangedEvent) {
    await this.cache.del(cacheKey(event.group));
    if (!event.remote) {
      await this.store.publish(Keys.propsChannel, event.group).catch((err: Error) =>
        this.logger.warn(`could not announce ${event.group} change: ${err.name}`));
    }
  }

  private async load(group: StrategyGroup): Promise<Shape> {
    const cached = await this.cache.get<Shape>(cacheKey(group));
    if (cached) return cached;
    const value = await this.read(group);
    // The TTL is a safety net: a reload racing a save on another instance cannot keep stale values for long.
    await this.cache.set(cacheKey(group), value, CACHE_TTL_MS);
    return value;
  }

  /** The group as stored in sys_props, defaults for the fields never saved. */
  private async read(group: StrategyGroup): Promise<Shape> {
    const rows = await this.props.find({ where: { group } });
    const value = DEFAULTS[group]();
    for (const row of rows) {
      if (!(row.key in value)) continue;
      const fallback = (value as any)[row.key];
      (value as any)[row.key] = decode(row.value, typeof fallback) ?? fallback;
    }
    return value;
  }

  private async save(group: StrategyGroup, dto: object): Promise<Shape> {
    const rows = Object.entries(dto)
      .filter(([, v]) => v !== undefined)
      .map(([key, v]) => ({ group, key, value: String(v) }));
    if (rows.length) {
      await this.props.upsert(rows, ['group', 'key']);
      // Await the refresh so that the caller's next read sees the new values.
      await this.events.emitAsync(SysPropsChangedEvent.NAME, new SysPropsChangedEvent(group));
    }
    return this.load(group);
  }
}

function decode(raw: string, type: string): unknown {
  if (type === 'number') return /^-?\d+$/.test(raw) ? Number(raw) : undefined;
  if (type === 'boolean') return raw === 'true' ? true : raw === 'false' ? false : undefined;
  return raw;
}
