import { ExecutionContext, SetMetadata } from '@nestjs/common';

/** The throttled entry points; each has its own per-IP count and its own limit in AppConfig. */
export type RateLimitedRoute = 'login' | 'qrcode-verify' | 'captcha';

const RATE_LIMITED_ROUTE = 'rate-limit:route';

/** Per-IP throttling of this handler (issue 5); limits and window come from THROTTLE_* (contract §1). */
export const RateLimit = (route: RateLimitedRoute) => SetMetadata(RATE_LIMITED_ROUTE, route);

export function rateLimitedRoute(context: ExecutionContext): RateLimitedRoute | undefined {
  return Reflect.getMetadata(RATE_LIMITED_ROUTE, context.getHandler());
}
