import type { Locale } from '../common/error-code';

/**
 * Language of e-mails, SMS and site messages. Users carry no language of their
 * own yet, so notifications follow the service's default (Chinese); the
 * templates and texts also exist in English for when they do.
 */
export const NOTIFICATION_LOCALE: Locale = 'zh';

/**
 * Pub/sub channel (REDIS_KEY_PREFIX is added by the Redis store) that carries a
 * new site message to every instance, so that the instance holding the user's
 * SSE stream pushes it whichever instance delivered it.
 */
export const MESSAGE_PUSH_CHANNEL = 'SYS_MESSAGE_PUSHED';
