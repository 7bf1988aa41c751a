import { CacheModule } from '@nestjs/cache-manager';
import { DynamicModule, Global, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { ScheduleModule } from '@nestjs/schedule';
import { TypeOrmModule } from '@nestjs/typeorm';

import { AccessRuleModule } from './access-rule/access-rule.module';
import { ApiKeyModule } from './api-key/api-key.module';
import { AuditModule } from './audit/audit.module';
import { AuthModule } from './auth/auth.module';
import { AllExceptionsFilter } from './common/all-exceptions.filter';
import { Clock, SystemClock } from './common/clock';
import { ONE_OFF_COMMAND } from './common/one-off-command';
import { ComplianceModule } from './compliance/compliance.module';
import { AppConfig } from './config/app-config';
import { DashboardModule } from './dashboard/dashboard.module';
import { dataSourceOptions, initializeDataSource } from './database/data-source-options';
import { DormantAccountModule } from './dormant-account/dormant-account.module';
import { HealthController } from './health/health.controller';
import { LogForwardModule } from './log-forward/log-forward.module';
import { LogSealModule } from './log-seal/log-seal.module';
import { LoginLogModule } from './login-log/login-log.module';
import { MetricsModule } from './metrics/metrics.module';
import { MfaModule } from './mfa/mfa.module';
import { MfaRecoveryModule } from './mfa/mfa-recovery.module';
import { NotificationModule } from './notification/notification.module';
import { OnlineModule } from './online/online.module';
import { OtpModule } from './otp/otp.module';
import { PasskeyModule } from './passkey/passkey.module';
import { ProfileModule } from './profile/profile.module';
import { QrcodeModule } from './qrcode/qrcode.module';
import { RateLimitModule } from './rate-limit/rate-limit.module';
import { LogRetentionModule } from './retention/log-retention.module';
import { SessionModule } from './session/session.module';
import { StoreModule } from './store/store.module';
import { StrategyModule } from './strategy/strategy.module';
import { TokenModule } from './token/token.module';
import { AdminBootstrapModule } from './user-account/admin-bootstrap.module';
import { AccountRecoveryModule } from './user-account/recovery/account-recovery.module';
import { UserAccountModule } from './user-account/user-account.module';
import { WebhookModule } from './webhook/webhook.module';

@Global()
@Module({})
class CoreModule {
  static forRoot(config: AppConfig, command: boolean): DynamicModule {
    return {
      module: CoreModule,
      providers: [
        { provide: AppConfig, useValue: config },
        { provide: Clock, useClass: SystemClock },
        { provide: ONE_OFF_COMMAND, useValue: command },
      ],
      exports: [AppConfig, Clock, ONE_OFF_COMMAND],
    };
  }
}

@Module({})
export class AppModule {
  /**
   * `command`: the context of a one-off command run on the server (admin:recover): the service's
   * stores and rules, without the first start's admin account and without the notification
   * outbox, whose worker would deliver (or, unconfigured, give up on) the service's queued messages,
   * and without the second factor (which sends through that outbox; a command logs no one in).
   */
  static forRoot(config: AppConfig, { command = false }: { command?: boolean } = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [
        CoreModule.forRoot(config, command),
        TypeOrmModule.forRootAsync({
          useFactory: () => ({
            ...dataSourceOptions(config.DATABASE_URL, config.DB_DROP_SCHEMA, config.DB_STATEMENT_TIMEOUT_MS),
            // initializeDataSource retries an unreachable server itself, quietly and within START_TIMEOUT_MS;
            // @nestjs/typeorm's own retry logs a stack trace for each attempt.
            toRetry: () => false,
          }),
          // Migrations outside the statement deadline (a schema change may take longer than a request may).
          dataSourceFactory: (options) =>
            initializeDataSource(
              options!,
              config.DB_STATEMENT_TIMEOUT_MS,
              config.START_TIMEOUT_MS,
              config.DATABASE_URL,
            ),
        }),
        // Settings are read on every login, so they stay in process memory; other instances
        // learn of a change through SYS_PROPS_CHANGED (docs/architecture.md, "Per instance").
        CacheModule.register({ isGlobal: true }),
        EventEmitterModule.forRoot(),
        ScheduleModule.forRoot(),
        StoreModule,
        RateLimitModule,
        StrategyModule,
        SessionModule,
        LoginLogModule,
        UserAccountModule,
        AuthModule,
        // Before the second factor: its step then runs first, so no code is asked of a login the
        // rules refuse (AccessRuleStep); admin:recover lifts rules, so a command has it too.
        AccessRuleModule,
        ComplianceModule,
        DashboardModule,
        OnlineModule,
        QrcodeModule,
        TokenModule,
        // The second factor sends site messages through the outbox, so it stays out of a command too;
        // so does the dormant-account job (it notifies, and a command runs no schedule).
        // Webhooks deliver through the outbox and read their secrets with the second factor's key.
        ...(command ? [] : [NotificationModule, AdminBootstrapModule, MfaModule, DormantAccountModule, WebhookModule]),
        // Passkeys plug into the second factor (SECOND_FACTOR_METHODS), so they go where it goes.
        ...(command ? [] : [PasskeyModule]),
        // One-time codes by SMS and e-mail go through the outbox too.
        ...(command ? [] : [OtpModule]),
        // The own profile confirms a new mobile or e-mail with such a code.
        ...(command ? [] : [ProfileModule]),
        // Sealing runs in a command too (audit:verify seals before it checks); forwarding goes through the outbox.
        LogSealModule,
        ...(command ? [] : [LogForwardModule]),
        // A command deletes no logs: the retention job runs in the service only.
        ...(command ? [] : [LogRetentionModule, MetricsModule]),
        // API keys authenticate requests and flush their last-used times on a timer: the service's only.
        ...(command ? [] : [ApiKeyModule]),
        AuditModule,
        AccountRecoveryModule,
        // admin:recover --reset-mfa removes a second factor without the rest of MfaModule.
        MfaRecoveryModule,
      ],
      controllers: [HealthController],
      providers: [{ provide: APP_FILTER, useClass: AllExceptionsFilter }],
    };
  }
}
