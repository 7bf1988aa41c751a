import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { AuditModule } from '../audit/audit.module';
import { LoginLogController } from './login-log.controller';
import { LoginLogEntity } from './login-log.entity';
import { LoginLogRepository } from './login-log.repository';
import { LoginLogService } from './login-log.service';

@Module({
  imports: [TypeOrmModule.forFeature([LoginLogEntity]), AuditModule],
  controllers: [LoginLogController],
  providers: [LoginLogService, LoginLogRepository],
  exports: [LoginLogService],
})
export class LoginLogModule {}
