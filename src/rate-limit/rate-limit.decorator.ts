import { applyDecorators, ExecutionContext, SetMetadata, UseGuards } from '@nestjs/common';
import { ThrottlerGuard } from '@nestjs/throttler';

import { RATE_LIMITED_ROUTE } from '../common/auth-context';

/** The throttled entry points; each has its own per-IP count and its own limit in AppConfig. */
export type RateLimitedRoute = 'login' | 'qrcode-verify' | 'captcha' | 'otp-send';

/**
 * Per-IP throttling of this handler; limits and window come from THROTTLE_*.
 * The throttler guard sits on these handlers only: every other route skips it entirely.
 * The throttled routes are all @Public, so the session guard, global and thus first, lets them through.
 */
export const RateLimit = (route: RateLimitedRoute) =>
  applyDecorators(SetMetadata(RATE_LIMITED_ROUTE, route), UseGuards(ThrottlerGuard));

export function rateLimitedRoute(context: ExecutionContext): RateLimitedRoute | undefined {
  return Reflect.getMetadata(RATE_LIMITED_ROUTE, context.getHandler());
}
