import type { DataSourceOptions } from 'typeorm';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { AuditLogEntity } from '../audit/audit-log.entity';
import { LoginLogEntity } from '../login-log/login-log.entity';
import { MessageEntity } from '../notification/message/message.entity';
import { NotificationEntity } from '../notification/outbox/notification.entity';
import { PasswordReminderEntity } from '../notification/reminder/password-reminder.entity';
import { SysPropEntity } from '../strategy/sys-prop.entity';
import { RoleEntity, UserRoleEntity } from '../user-account/role.entity';
import { UserEntity } from '../user-account/user.entity';
import { InitSchema1763900000000 } from './migrations/1763900000000-init-schema';
import { Notifications1764300000000 } from './migrations/1764300000000-notifications';
import { AuditLog1764600000000 } from './migrations/1764600000000-audit-log';
import { AuditTargetName1765000000000 } from './migrations/1765000000000-audit-target-name';

export const ENTITIES = [
  UserEntity, RoleEntity, UserRoleEntity, LoginLogEntity, SysPropEntity,
  NotificationEntity, MessageEntity, PasswordReminderEntity, AuditLogEntity,
];
export const MIGRATIONS = [
  InitSchema1763900000000, Notifications1764300000000, AuditLog1764600000000, AuditTargetName1765000000000,
];

/** Contract §1 DATABASE_URL → TypeORM options. Migrations run on start; never synchronize. */
export function dataSourceOptions(databaseUrl: string, dropSchema = false): DataSourceOptions {
  const common = { entities: ENTITIES, migrations: MIGRATIONS, migrationsRun: true, synchronize: false, dropSchema, logging: false };
  if (databaseUrl.startsWith('sqlite:')) {
    const database = databaseUrl.slice('sqlite:'.length);
    if (database !== ':memory:') mkdirSync(dirname(database), { recursive: true });
    return {
      ...common,
      type: 'better-sqlite3',
      database,
      // WAL lets readers go on while one writer commits; busy_timeout waits instead of failing.
      prepareDatabase: (db: any) => {
        db.pragma('journal_mode = WAL');
        db.pragma('busy_timeout = 5000');
      },
    } as DataSourceOptions;
  }
  const url = new URL(databaseUrl);
  return {
    ...common,
    // 'mariadb' and 'mysql' share the mysql2 driver; the type only steers SQL dialect details.
    type: url.protocol === 'mariadb:' ? 'mariadb' : 'mysql',
    host: url.hostname,
    port: Number(url.port || 3306),
    username: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    database: url.pathname.replace(/^\//, ''),
    timezone: 'Z',
    charset: 'utf8mb4',
    connectTimeout: 5000,
    extra: { connectionLimit: 20, enableKeepAlive: true },
  } as DataSourceOptions;
}
