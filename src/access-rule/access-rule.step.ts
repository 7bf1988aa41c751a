import { Injectable } from '@nestjs/common';

import type { LoginStep, StepAttempt } from '../auth/login/login.service';
import { ErrorCode } from '../common/error-code';
import { LoginStatus } from '../login-log/login-log.entity';
import { AccessRuleService } from './access-rule.service';

/**
 * The access rules in the login tail: a registered step, so every way in meets them after its own
 * proof and the lock and disabled checks — someone without the password learns nothing about the
 * rules. Refused: ACCESS_DENIED, logged `denied`, which the lock does not count. It runs each time
 * the tail does: at the password step of a login that then asks for a second factor (no code is
 * asked from where the login would be refused), and again at the second step, from that
 * request's IP and time.
 */
@Injectable()
export class AccessRuleStep implements LoginStep {
  readonly name = 'accessRule';

  constructor(private readonly rules: AccessRuleService) {}

  async run(attempt: StepAttempt): Promise<void> {
    const decision = await this.rules.decide(attempt.user.id, attempt.way.ip, attempt.now);
    if (!decision.allowed) await attempt.fail(LoginStatus.DENIED, ErrorCode.ACCESS_DENIED);
  }
}
