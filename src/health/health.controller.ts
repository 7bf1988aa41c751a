import { Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiProperty, ApiTags } from '@nestjs/swagger';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

import { ApiDoc } from '../common/api-docs';
import { AppException } from '../common/app.exception';
import { Public } from '../common/auth-context';
import { ErrorCode } from '../common/error-code';
import { AppConfig } from '../config/app-config';
import { KvStore } from '../store/kv.store';

/** The tables every login reads and writes: a cheap read on each, under the statement deadline. */
const LOGIN_TABLES = ['sys_user', 'sys_login_log'];

/** OpenAPI: `data` of GET /health. */
export class HealthDto {
  @ApiProperty({ enum: ['up'] }) status: 'up';
  @ApiProperty({ enum: ['up', 'down'] }) database: string;
  @ApiProperty({ enum: ['up', 'down', 'not configured'] }) redis: string;
}

/** Liveness for load balancers: whether the database and the shared store answer. */
@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly store: KvStore,
    private readonly config: AppConfig,
  ) {}

  @Get()
  @Post()
  @HttpCode(200)
  @Public()
  @ApiDoc('Liveness for load balancers: whether the database and Redis answer', { data: HealthDto })
  async check() {
    // A probe that does not answer within 2 s counts as down; the timer is cleared either way, so
    // frequent probes leave nothing pending.
    const timeout = <T>(p: Promise<T>) => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), 2000);
      });
      return Promise.race([p, late]).finally(() => clearTimeout(timer));
    };
    // A read on the login tables, not SELECT 1: a table stalled by another connection's lock
    // keeps logins from answering while the server itself still answers.
    const database = await timeout(
      Promise.all(LOGIN_TABLES.map((table) => this.dataSource.query(`SELECT 1 FROM ${table} LIMIT 1`))),
    ).then(
      () => 'up',
      () => 'down',
    );
    const redis = this.config.usesRedis
      ? await timeout(this.store.ping()).then(
          (ok) => (ok ? 'up' : 'down'),
          () => 'down',
        )
      : 'not configured';
    if (database === 'down' || redis === 'down') throw new AppException(ErrorCode.SERVICE_UNAVAILABLE);
    return { status: 'up', database, redis };
  }
}
