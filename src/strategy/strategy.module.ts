import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { AuditModule } from '../audit/audit.module';
import { SettingsRepository } from './settings.repository';
import { StrategyController } from './strategy.controller';
import { StrategyService } from './strategy.service';
import { SysPropEntity } from './sys-prop.entity';

@Module({
  imports: [TypeOrmModule.forFeature([SysPropEntity]), AuditModule],
  controllers: [StrategyController],
  providers: [StrategyService, SettingsRepository],
  exports: [StrategyService, SettingsRepository],
})
export class StrategyModule {}
