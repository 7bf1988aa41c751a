import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

import { Logger } from '@nestjs/common';
import type * as Mysql2 from 'mysql2';
import { DataSource, DataSourceOptions, MigrationExecutor } from 'typeorm';

import { AccessRuleEntity } from '../access-rule/access-rule.entity';
import { ApiKeyEntity } from '../api-key/api-key.entity';
import { AuditLogEntity } from '../audit/audit-log.entity';
import { addressOf, reasonOf, StartFailure } from '../common/start-failure';
import { LogChainEntity, LogReleaseEntity } from '../log-seal/log-chain.entity';
import { LoginLogEntity } from '../login-log/login-log.entity';
import { RecoveryCodeEntity, UserMfaEntity } from '../mfa/mfa.entities';
import { MessageEntity } from '../notification/message/message.entity';
import { NotificationEntity } from '../notification/outbox/notification.entity';
import { PasswordReminderEntity } from '../notification/reminder/password-reminder.entity';
import { PasskeyEntity } from '../passkey/passkey.entity';
import { SysPropEntity } from '../strategy/sys-prop.entity';
import { PasswordHistoryEntity } from '../user-account/password-history.entity';
import { RoleEntity, UserRoleEntity } from '../user-account/role.entity';
import { UserEntity } from '../user-account/user.entity';
import { UserIdentifierEntity } from '../user-account/user-identifier.entity';
import { WebhookDeliveryEntity, WebhookEntity } from '../webhook/webhook.entity';
import { InitSchema1763900000000 } from './migrations/1763900000000-init-schema';
import { Notifications1764300000000 } from './migrations/1764300000000-notifications';
import { AuditLog1764600000000 } from './migrations/1764600000000-audit-log';
import { UserIdentifiers1764900000000 } from './migrations/1764900000000-user-identifiers';
import { AuditTargetName1765000000000 } from './migrations/1765000000000-audit-target-name';
import { Mfa1765100000000 } from './migrations/1765100000000-mfa';
import { LastLoginTime1765215000000 } from './migrations/1765215000000-last-login-time';
import { PasswordHistory1765220000000 } from './migrations/1765220000000-password-history';
import { UserSoftDelete1765300000000 } from './migrations/1765300000000-user-soft-delete';
import { LogSearch1765410000000 } from './migrations/1765410000000-log-search';
import { NormaliseIdentifiers1765500000000 } from './migrations/1765500000000-normalise-identifiers';
import { ApiKeys1765600000000 } from './migrations/1765600000000-api-keys';
import { Webhooks1765700000000 } from './migrations/1765700000000-webhooks';
import { AccessRules1765800000000 } from './migrations/1765800000000-access-rules';
import { LogSeals1765900000000 } from './migrations/1765900000000-log-seals';
import { Passkeys1766000000000 } from './migrations/1766000000000-passkeys';
import { PersonalData1766100000000 } from './migrations/1766100000000-personal-data';
import { LogPersonalData1766200000000 } from './migrations/1766200000000-log-personal-data';

export const ENTITIES = [
  UserEntity,
  RoleEntity,
  UserRoleEntity,
  LoginLogEntity,
  SysPropEntity,
  NotificationEntity,
  MessageEntity,
  PasswordReminderEntity,
  AuditLogEntity,
  UserIdentifierEntity,
  UserMfaEntity,
  RecoveryCodeEntity,
  PasswordHistoryEntity,
  ApiKeyEntity,
  WebhookEntity,
  WebhookDeliveryEntity,
  AccessRuleEntity,
  LogChainEntity,
  LogReleaseEntity,
  PasskeyEntity,
];
export const MIGRATIONS = [
  InitSchema1763900000000,
  Notifications1764300000000,
  AuditLog1764600000000,
  UserIdentifiers1764900000000,
  AuditTargetName1765000000000,
  Mfa1765100000000,
  LastLoginTime1765215000000,
  PasswordHistory1765220000000,
  UserSoftDelete1765300000000,
  LogSearch1765410000000,
  NormaliseIdentifiers1765500000000,
  ApiKeys1765600000000,
  Webhooks1765700000000,
  AccessRules1765800000000,
  LogSeals1765900000000,
  Passkeys1766000000000,
  PersonalData1766100000000,
  LogPersonalData1766200000000,
];

/**
 * The session limits every MariaDB/MySQL connection gets: a statement waiting on
 * a table, metadata or row lock, or running longer than the deadline, fails instead of keeping
 * the request waiting. Both servers take the lock waits in whole seconds. The run-time limit is
 * named differently: MariaDB's max_statement_time (seconds, every statement) sits in a /*M!
 * comment that only MariaDB executes; MySQL's max_execution_time (ms, SELECT only) in a /*!50708
 * comment that MySQL executes and MariaDB ignores. One statement, so it needs no round trip to
 * learn the server first.
 */
export function sessionLimitsSql(deadlineMs: number): string {
  const seconds = Math.max(1, Math.ceil(deadlineMs / 1000));
  return (
    `SET SESSION lock_wait_timeout = ${seconds}, innodb_lock_wait_timeout = ${seconds}` +
    ` /*M!100101 , max_statement_time = ${(deadlineMs / 1000).toFixed(3)} */` +
    ` /*!50708 , max_execution_time = ${Math.ceil(deadlineMs)} */`
  );
}

/**
 * mysql2 as TypeORM's driver, with the session limits applied to every connection its pools
 * open. The pool emits 'connection' before it hands a new connection out, so the SET is queued
 * ahead of the first query of the app (TypeORM's own start-up check included). Required here, not
 * imported: the embedded default never loads it.
 */
function mysql2WithSessionLimits(deadlineMs: number): typeof Mysql2 {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mysql2 = require('mysql2') as typeof Mysql2;
  const sql = sessionLimitsSql(deadlineMs);
  const logger = new Logger('Database');
  const createPool = (config: Mysql2.PoolOptions) => {
    const pool = mysql2.createPool(config);
    pool.on('connection', (connection) => {
      connection.query(sql, (err) => {
        if (err) logger.warn(`statement deadline not set on a new connection: ${err.code ?? err.errno ?? err.name}`);
      });
    });
    return pool;
  };
  // defineProperty, not assignment: compiled by tsc, the module namespace has getter-only members.
  return Object.create(mysql2, { createPool: { value: createPool, enumerable: true } });
}

/**
 * DATABASE_URL → TypeORM options. Migrations run on start (on MariaDB/MySQL through
 * initializeDataSource, outside the statement deadline); never synchronize.
 */
export function dataSourceOptions(
  databaseUrl: string,
  dropSchema = false,
  statementTimeoutMs = 3_000,
): DataSourceOptions {
  const common = {
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsRun: true,
    synchronize: false,
    dropSchema,
    logging: false,
  };
  if (databaseUrl.startsWith('sqlite:')) {
    const database = databaseUrl.slice('sqlite:'.length);
    if (database !== ':memory:') mkdirSync(dirname(database), { recursive: true });
    return {
      ...common,
      type: 'better-sqlite3',
      database,
      // WAL lets readers go on while one writer commits; busy_timeout waits for the write lock,
      // up to the statement deadline, then fails as SQLITE_BUSY (503).
      prepareDatabase: (db: { pragma(source: string): unknown }) => {
        db.pragma('journal_mode = WAL');
        db.pragma(`busy_timeout = ${Math.ceil(statementTimeoutMs)}`);
      },
    } as DataSourceOptions;
  }
  const url = new URL(databaseUrl);
  return {
    ...common,
    migrationsRun: false,
    // 'mariadb' and 'mysql' share the mysql2 driver; the type only steers SQL dialect details.
    type: url.protocol === 'mariadb:' ? 'mariadb' : 'mysql',
    driver: mysql2WithSessionLimits(statementTimeoutMs),
    host: url.hostname,
    port: Number(url.port || 3306),
    username: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    database: url.pathname.replace(/^\//, ''),
    timezone: 'Z',
    charset: 'utf8mb4',
    connectTimeout: 5000,
    // No stack captured at each query's call site for the error it might raise: that capture is a
    // visible share of the main thread under logins, and the service never shows a
    // driver error's stack (a database failure is answered and logged by its code).
    trace: false,
    extra: { connectionLimit: 20, enableKeepAlive: true },
  } as DataSourceOptions;
}

/**
 * Opens the data source and runs pending migrations. On MariaDB/MySQL the migrations run on one
 * connection whose run-time limit is lifted for them (a schema change copies whole tables: an
 * ALTER of sys_user at 1 M rows takes longer than any request deadline, and a start must not fail
 * on it) and put back afterwards; lock waits keep their deadline. SQLite has only the busy
 * timeout, so TypeORM runs its migrations itself there.
 */
/** How long a starting instance waits while another one migrates the same database. */
const MIGRATION_LOCK_WAIT_SECONDS = 600;

export async function initializeDataSource(
  options: DataSourceOptions,
  statementTimeoutMs = 3_000,
  startTimeoutMs = 30_000,
  databaseUrl = '',
): Promise<DataSource> {
  const dataSource = await openWithin(options, startTimeoutMs, databaseUrl);
  if (options.type !== 'mysql' && options.type !== 'mariadb') return dataSource;
  const runner = dataSource.createQueryRunner();
  try {
    await runner.connect();
    const seconds = Math.max(1, Math.ceil(statementTimeoutMs / 1000));
    await runner.query(
      `SET SESSION lock_wait_timeout = ${seconds} /*M!100101 , max_statement_time = 0 */ /*!50708 , max_execution_time = 0 */`,
    );
    // Instances started together (a rollout, the cluster suite) would each run the pending
    // migrations: MySQL's DDL is not transactional, so the second one fails on "table exists".
    // A named lock of the server makes them take turns; the later one then finds nothing pending.
    const [{ locked }] = await runner.query(
      `SELECT GET_LOCK('lps_migrations', ${MIGRATION_LOCK_WAIT_SECONDS}) AS locked`,
    );
    if (Number(locked) !== 1)
      throw new Error(`another instance held the migration lock for ${MIGRATION_LOCK_WAIT_SECONDS} s`);
    try {
      await new MigrationExecutor(dataSource, runner).executePendingMigrations();
    } finally {
      await runner.query(`SELECT RELEASE_LOCK('lps_migrations')`).catch(() => undefined);
    }
    await runner.query(sessionLimitsSql(statementTimeoutMs));
  } catch (err) {
    await dataSource.destroy().catch(() => undefined);
    throw err;
  } finally {
    await runner.release().catch(() => undefined);
  }
  return dataSource;
}

/** A server that may answer a moment later (starting, restarting, its name not yet in DNS): retried. */
const NOT_YET = new Set([
  'ECONNREFUSED',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'PROTOCOL_CONNECTION_LOST',
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN',
]);
/** A server that answered no: waiting does not help. */
const REFUSED: Record<string, string> = {
  ER_ACCESS_DENIED_ERROR: 'the server refused the user or password',
  ER_ACCESS_DENIED_NO_PASSWORD_ERROR: 'the server refused the user or password',
  ER_NOT_SUPPORTED_AUTH_MODE: 'the server asks for an authentication method the driver does not support',
  ER_DBACCESS_DENIED_ERROR: 'the user may not use this database',
  ER_BAD_DB_ERROR: 'the database does not exist (create it first)',
};
const SQLITE_CANNOT_OPEN = new Set([
  'SQLITE_CANTOPEN',
  'SQLITE_READONLY',
  'SQLITE_NOTADB',
  'SQLITE_PERM',
  'EACCES',
  'EROFS',
]);

/**
 * DataSource.initialize(), retried quietly for START_TIMEOUT_MS while a MariaDB/MySQL server does
 * not answer; then, or at once for a refusal, a StartFailure naming DATABASE_URL (host and port, never
 * the password). Other errors (a failing migration) keep their stack: they are the code's.
 * Wall time, not the Clock: a start's deadline is no rule of the service.
 */
async function openWithin(
  options: DataSourceOptions,
  startTimeoutMs: number,
  databaseUrl: string,
): Promise<DataSource> {
  const giveUpAt = Date.now() + startTimeoutMs;
  for (;;) {
    const dataSource = new DataSource(options);
    try {
      return await dataSource.initialize();
    } catch (err) {
      if (dataSource.isInitialized) await dataSource.destroy().catch(() => undefined);
      const code = reasonOf(err);
      if (options.type === 'better-sqlite3') {
        if (!SQLITE_CANNOT_OPEN.has(code)) throw err;
        throw new StartFailure(
          'DATABASE_URL',
          `cannot open the SQLite file ${options.database} (${code}): check the path and that the service may write there`,
          err,
        );
      }
      const where = `${options.type === 'mariadb' ? 'MariaDB' : 'MySQL'} at ${addressOf(databaseUrl, 3306)}`;
      if (REFUSED[code]) throw new StartFailure('DATABASE_URL', `${where}: ${REFUSED[code]} (${code})`, err);
      if (!NOT_YET.has(code)) throw err;
      if (Date.now() >= giveUpAt) {
        throw new StartFailure(
          'DATABASE_URL',
          `no answer from ${where} within ${Math.round(startTimeoutMs / 1000)} s (${code}): check that the server runs and that DATABASE_URL points to it`,
          err,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(1_000, Math.max(0, giveUpAt - Date.now()))));
    }
  }
}
