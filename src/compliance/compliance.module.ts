import { Module } from '@nestjs/common';

import { AccessRuleModule } from '../access-rule/access-rule.module';
import { UserAccountModule } from '../user-account/user-account.module';
import { ComplianceController } from './compliance.controller';
import { ComplianceService } from './compliance.service';

/** The 等保三级 controls as an assessor checks them: which are in force here (src/compliance/controls.ts). */
@Module({
  imports: [AccessRuleModule, UserAccountModule],
  controllers: [ComplianceController],
  providers: [ComplianceService],
})
export class ComplianceModule {}
