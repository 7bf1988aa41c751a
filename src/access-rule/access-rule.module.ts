import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { AuditModule } from '../audit/audit.module';
import { AuthModule } from '../auth/auth.module';
import { LOGIN_STEPS } from '../auth/login/login.service';
import { StrategyModule } from '../strategy/strategy.module';
import { UserAccountModule } from '../user-account/user-account.module';
import { AccessRuleController } from './access-rule.controller';
import { AccessRuleEntity } from './access-rule.entity';
import { AccessRuleRepository } from './access-rule.repository';
import { AccessRuleService } from './access-rule.service';
import { AccessRuleStep } from './access-rule.step';

/**
 * Login access rules: who may log in from which addresses at which times. A step of the login tail
 * (AccessRuleStep), so every way in meets them. StrategyModule carries their changes between
 * instances on SYS_PROPS_CHANGED.
 */
@Module({
  imports: [TypeOrmModule.forFeature([AccessRuleEntity]), AuthModule, UserAccountModule, StrategyModule, AuditModule],
  controllers: [AccessRuleController],
  providers: [AccessRuleRepository, AccessRuleService, AccessRuleStep, LOGIN_STEPS.provide(AccessRuleStep)],
  exports: [AccessRuleService],
})
export class AccessRuleModule {}
