import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { AuditModule } from '../audit/audit.module';
import { CALLER_CREDENTIALS } from '../session/caller-credential';
import { ApiKeyAuthenticator } from './api-key.authenticator';
import { ApiKeyCache } from './api-key.cache';
import { ApiKeyController } from './api-key.controller';
import { ApiKeyEntity } from './api-key.entity';
import { ApiKeyRepository } from './api-key.repository';
import { ApiKeyService } from './api-key.service';
import { ApiKeyUsage } from './api-key-usage';

/**
 * API keys of internal services: /sys/apiKey/*, and the key as a caller of any other route, which
 * the session kernel asks through CALLER_CREDENTIALS (so that the kernel imports no feature).
 */
@Module({
  imports: [TypeOrmModule.forFeature([ApiKeyEntity]), AuditModule],
  controllers: [ApiKeyController],
  providers: [
    ApiKeyRepository,
    ApiKeyCache,
    ApiKeyUsage,
    ApiKeyService,
    ApiKeyAuthenticator,
    CALLER_CREDENTIALS.provide(ApiKeyAuthenticator),
  ],
})
export class ApiKeyModule {}
