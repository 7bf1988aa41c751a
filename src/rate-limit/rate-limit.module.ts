import { Module } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';
import type { FastifyRequest } from 'fastify';

import { clientIp } from '../common/client-info';
import { AppConfig } from '../config/app-config';
import { KvStore } from '../store/kv.store';
import { KvThrottlerStorage } from './kv-throttler.storage';
import { RateLimitedRoute, rateLimitedRoute } from './rate-limit.decorator';

/**
 * Per-IP throttling of the handlers marked @RateLimit: counted in the shared store (Redis when
 * REDIS_URL is set, so the limit holds for the cluster, not per instance). Over the limit the
 * answer is RATE_LIMITED 429 with Retry-After. The client IP is the one the rest of the service
 * uses (clientIp: X-Forwarded-For only with TRUST_PROXY). A store that does not answer refuses
 * the request with SERVICE_UNAVAILABLE rather than letting it through unthrottled.
 */
@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      inject: [AppConfig, KvStore],
      useFactory: (config: AppConfig, store: KvStore) => {
        const limits: Record<RateLimitedRoute, number> = {
          login: config.THROTTLE_LOGIN_LIMIT,
          'qrcode-verify': config.THROTTLE_QRCODE_VERIFY_LIMIT,
          captcha: config.THROTTLE_CAPTCHA_LIMIT,
          'otp-send': config.THROTTLE_OTP_SEND_LIMIT,
        };
        return {
          storage: new KvThrottlerStorage(store),
          getTracker: (req) => clientIp(req as FastifyRequest),
          // Readable keys for operators: THROTTLE:login:203.0.113.7
          generateKey: (context, tracker) => `${rateLimitedRoute(context)}:${tracker}`,
          throttlers: [
            {
              name: 'default',
              ttl: config.THROTTLE_TTL_SECONDS * 1000,
              limit: (context) => limits[rateLimitedRoute(context)!],
            },
          ],
        };
      },
    }),
  ],
})
export class RateLimitModule {}
